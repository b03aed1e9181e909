// The request bound (src/kube/call.ts): a request the API server never answers counts as unanswered
// after requestTimeoutMs, also when the call hangs on a caller's signal (an activity's cancellation)
// and the garbage collector runs meanwhile. On Node 20, AbortSignal.timeout inside AbortSignal.any
// was collected before it fired, and such a request hung until the activity's own timeout.
import { getEventListeners } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeUnanswered, requestBound } from '../../../src/kube/call.js';
import { createKubeClients } from '../../../src/kube/clients.js';
import { ObjectCalls, TRAINJOBS } from '../../../src/kube/objects.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** An API server that takes every request and never answers it. */
let silent: Server;
let server: string;
beforeAll(async () => {
  silent = createServer(() => {});
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  server = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
});
afterAll(async () => {
  silent.closeAllConnections();
  await new Promise((resolve) => silent.close(resolve));
});

function callsTo(url: string, ctx: { requestTimeoutMs: number; signal?: AbortSignal }): ObjectCalls {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: url, skipTLSVerify: true }],
    users: [{ name: 'u' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return new ObjectCalls(createKubeClients(kc), ctx);
}

/** Runs `work` while the garbage collector is forced every few milliseconds. */
async function underGc<T>(work: () => Promise<T>): Promise<T> {
  const collecting = setInterval(gc, 5);
  try {
    return await work();
  } finally {
    clearInterval(collecting);
  }
}

describe('request bound', () => {
  it('an unanswered request on a caller signal ends after requestTimeoutMs while the collector runs', async () => {
    const caller = new AbortController();
    const calls = callsTo(server, { requestTimeoutMs: 300, signal: caller.signal });
    const t0 = Date.now();
    const outcome = await underGc(() =>
      Promise.race([
        calls.get(TRAINJOBS, 'ml', 'tj').then(
          () => 'answered',
          (error: unknown) => error,
        ),
        new Promise((resolve) => setTimeout(() => resolve('still waiting after 5 s'), 5_000)),
      ]),
    );
    expect(outcome).toBeInstanceOf(KubeUnanswered);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(300);
    // A long-lived caller signal (the admission controller's shutdown) keeps no listener of an ended call.
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
  }, 10_000);

  it("the caller's abort ends the request at once, and release leaves no listener behind", async () => {
    const caller = new AbortController();
    const bound = requestBound({ requestTimeoutMs: 60_000, signal: caller.signal });
    caller.abort(new Error('cancelled'));
    expect(bound.signal.aborted).toBe(true);
    bound.release();

    const late = new AbortController();
    const released = requestBound({ requestTimeoutMs: 60_000, signal: late.signal });
    released.release();
    late.abort();
    expect(released.signal.aborted).toBe(false);
  });

  it('a signal already aborted aborts the request before it is sent', () => {
    const bound = requestBound({ requestTimeoutMs: 60_000, signal: AbortSignal.abort() });
    expect(bound.signal.aborted).toBe(true);
    bound.release();
  });
});
