// `dispatch-kubeflow worker --tls-cert --tls-key`: its three listeners (the Temporal SDK's metrics,
// dispatch's, /readyz and /livez) answer over HTTPS only, the SDK's through the loopback exporter;
// a certificate replaced in its files is served without a restart; SIGTERM still stops it cleanly.
import { X509Certificate } from 'node:crypto';
import { copyFileSync, renameSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { testCertificate, type TestCertificate } from '../../support/test-certificate.js';
import { freshNamespace, uniqueName, type TestNamespace } from '../support/kube.js';
import { SHUTDOWN_BOUND_MS, spawnWorkerCommand, writeWorkerConfig, type WorkerCommand } from '../support/worker-command.js';

let ns: TestNamespace;
let served: TestCertificate;
let renewed: TestCertificate;
let worker: WorkerCommand;

/** GET over a connection of its own, trusting both test certificates; undefined when it fails. */
const get = (url: string) =>
  new Promise<{ status: number; body: string; peer: string } | undefined>((resolve) => {
    const call = httpsRequest(url, { agent: false, ca: [served.cert, renewed.cert] }, (response) => {
      const peer = (response.socket as TLSSocket).getPeerCertificate().fingerprint256;
      let body = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode!, body, peer }));
    });
    call.on('error', () => resolve(undefined));
    call.end();
  });

beforeAll(async () => {
  ns = await freshNamespace('worker-tls');
  [served, renewed] = [testCertificate(), testCertificate()];
  worker = await spawnWorkerCommand({
    config: writeWorkerConfig(ns.name, uniqueName('worker-tls')),
    args: ['--tls-cert', served.certFile, '--tls-key', served.keyFile],
  });
});

afterAll(async () => {
  if (worker && worker.child.exitCode === null) worker.child.kill('SIGKILL');
  served?.remove();
  renewed?.remove();
  await ns?.dispose();
});

it('serves health and both metrics endpoints over HTTPS only, the renewed certificate once its files change, and stops on SIGTERM', async () => {
  expect(worker.healthUrl).toMatch(/^https:/);
  await expect.poll(() => get(`${worker.healthUrl}/livez`), { timeout: 90_000, interval: 250 }).toMatchObject({ status: 200 });
  expect(worker.output()).toMatch(/"worker started".*"tls":"on, /);
  const dispatch = await get(`${worker.dispatchMetricsUrl}/metrics`);
  expect(dispatch?.status).toBe(200);
  expect(dispatch?.body).toContain('dispatch_');
  // Core's exporter has series once the worker polls.
  await expect
    .poll(async () => (await get(`${worker.metricsUrl}/metrics`))?.body ?? '', { timeout: 60_000, interval: 500 })
    .toMatch(/^temporal_/m);
  // Plain HTTP is not answered.
  const plain = await fetch(`${worker.healthUrl.replace('https:', 'http:')}/livez`).then((r) => r.status, () => 'refused');
  expect(plain).toBe('refused');

  // Renewed in place (each file replaced by a rename, as a Secret volume's update does).
  for (const [from, to] of [
    [renewed.certFile, served.certFile],
    [renewed.keyFile, served.keyFile],
  ] as const) {
    copyFileSync(from, join(served.dir, 'next'));
    renameSync(join(served.dir, 'next'), to);
  }
  const renewedPrint = new X509Certificate(renewed.cert).fingerprint256;
  for (const url of [`${worker.healthUrl}/readyz`, `${worker.dispatchMetricsUrl}/metrics`, `${worker.metricsUrl}/metrics`])
    expect((await get(url))?.peer, url).toBe(renewedPrint);

  const started = Date.now();
  worker.child.kill('SIGTERM');
  expect(await worker.exited, worker.output()).toBe(0);
  expect(Date.now() - started).toBeLessThan(SHUTDOWN_BOUND_MS);
});
