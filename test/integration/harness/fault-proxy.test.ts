// The fault proxy in front of the real API server: each fault, and plain forwarding of watches.
import { Watch } from '@kubernetes/client-node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Trainer } from '../../../src/model/constants.js';
import { kubeRequest } from '../../../dev/harness/kube-access.js';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy.js';
import { freshNamespace, kubeConfig, type TestNamespace } from '../support/kube.js';
import { trainerObjects, trainingRuntime } from '../support/trainer.js';

const RUNTIMES = new RegExp(`/${Trainer.trainingRuntimePlural}$`);

describe('fault proxy', () => {
  let ns: TestNamespace;
  let proxy: FaultProxy;
  let direct: ReturnType<typeof trainerObjects>;
  let proxied: ReturnType<typeof trainerObjects>;

  beforeAll(async () => {
    ns = await freshNamespace('proxy');
    proxy = await startFaultProxy();
    direct = trainerObjects(kubeConfig(), ns.name, Trainer.trainingRuntimePlural);
    proxied = trainerObjects(proxy.kubeConfig(), ns.name, Trainer.trainingRuntimePlural);
  });
  afterEach(() => proxy.clear());
  afterAll(async () => {
    await proxy?.close();
    await ns?.dispose();
  });

  it('forwards plainly when no fault matches', async () => {
    const created = await proxied.create(await trainingRuntime('plain'));
    expect(created.metadata?.uid).toBeTruthy();
    const logged = proxy.requests.find((r) => r.method === 'POST' && r.path.endsWith('/trainingruntimes'));
    expect(logged).toMatchObject({ status: 201, upstreamStatus: 201 });
  });

  it('drop-response: the custom resource is created, the client never hears', async () => {
    const fault = proxy.inject({ method: 'POST', path: RUNTIMES, times: 1, action: 'drop-response' });
    await expect(proxied.create(await trainingRuntime('dropped'))).rejects.toThrow();
    expect(fault).toMatchObject({ hits: 1, remaining: 0 });
    expect(await direct.find('dropped')).toBeDefined();
    const logged = proxy.requests.filter((r) => r.fault === 'drop-response');
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ method: 'POST', upstreamStatus: 201 });
    expect(logged[0]?.status).toBeUndefined();
  });

  it('applies a fault to the next N matches only, then forwards again', async () => {
    proxy.inject({ method: 'POST', path: RUNTIMES, times: 2, action: 'status-500' });
    await expect(proxied.create(await trainingRuntime('n1'))).rejects.toMatchObject({ code: 500 });
    await expect(proxied.create(await trainingRuntime('n2'))).rejects.toMatchObject({ code: 500 });
    await proxied.create(await trainingRuntime('n3'));
    expect(await direct.find('n1')).toBeUndefined();
    expect(await direct.find('n2')).toBeUndefined();
    expect(await direct.find('n3')).toBeDefined();
  });

  it('status-429 answers Too Many Requests without forwarding', async () => {
    proxy.inject({ method: 'POST', path: RUNTIMES, action: 'status-429' });
    await expect(proxied.create(await trainingRuntime('throttled'))).rejects.toMatchObject({ code: 429 });
    expect(await direct.find('throttled')).toBeUndefined();
  });

  it('reset cuts the connection without forwarding', async () => {
    proxy.inject({ method: 'POST', path: RUNTIMES, action: 'reset' });
    await expect(proxied.create(await trainingRuntime('reset'))).rejects.toThrow(/ECONNRESET|socket hang up|terminated/i);
    expect(await direct.find('reset')).toBeUndefined();
  });

  it('delay forwards the request late, and its answer then as usual', async () => {
    proxy.inject({ method: 'POST', path: RUNTIMES, action: 'delay', delayMs: 1_500 });
    const t0 = Date.now();
    const created = await proxied.create(await trainingRuntime('delayed'));
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1_500);
    expect(created.metadata?.uid).toBeTruthy();
    expect(await direct.find('delayed')).toMatchObject({ metadata: { uid: created.metadata?.uid } });
  });

  it('hang answers nothing until the client gives up', async () => {
    proxy.inject({ method: 'POST', path: RUNTIMES, action: 'hang' });
    const started = Date.now();
    const call = kubeRequest(proxy.accessFor(), 'POST', `/apis/${Trainer.apiVersion}/namespaces/${ns.name}/${Trainer.trainingRuntimePlural}`, await trainingRuntime('hung'), {
      timeoutMs: 500,
    });
    await expect(call).rejects.toThrow(/no answer/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(450);
    expect(await direct.find('hung')).toBeUndefined();
  });

  it('matches on method and path: other requests pass', async () => {
    proxy.inject({ method: 'DELETE', path: RUNTIMES, action: 'status-500' });
    proxy.inject({ path: /\/nothing-like-this$/, action: 'reset' });
    await proxied.create(await trainingRuntime('unmatched'));
    expect(await proxied.get('unmatched')).toBeDefined();
  });

  const watchPath = () => `/apis/${Trainer.apiVersion}/namespaces/${ns.name}/${Trainer.trainingRuntimePlural}`;

  it('streams watch events through, and a fault on another path leaves the watch alone', async () => {
    proxy.inject({ method: 'POST', path: RUNTIMES, times: Infinity, watch: false, action: 'status-500' });
    const seen: string[] = [];
    let resolveAdded: () => void = () => undefined;
    const added = new Promise<void>((resolve) => (resolveAdded = resolve));
    const controller = await new Watch(proxy.kubeConfig()).watch(
      watchPath(),
      {},
      (phase, obj: { metadata?: { name?: string } }) => {
        seen.push(`${phase} ${obj.metadata?.name}`);
        if (phase === 'ADDED' && obj.metadata?.name === 'watched') resolveAdded();
      },
      () => undefined,
    );
    try {
      await direct.create(await trainingRuntime('watched'));
      await added;
    } finally {
      controller.abort();
    }
    expect(seen).toContain('ADDED watched');
    expect(proxy.requests.some((r) => r.watch && r.upstreamStatus === 200 && r.fault === undefined)).toBe(true);
  });

  it('drop-response on a watch cuts the stream', async () => {
    proxy.inject({ path: RUNTIMES, watch: true, action: 'drop-response' });
    const ended = new Promise<unknown>((resolve, reject) => {
      new Watch(proxy.kubeConfig()).watch(watchPath(), {}, () => undefined, resolve).catch(reject);
    });
    await ended;
    expect(proxy.requests.filter((r) => r.watch && r.fault === 'drop-response')).toHaveLength(1);
  });
});
