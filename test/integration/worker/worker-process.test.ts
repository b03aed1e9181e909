// `dispatch-kubeflow worker` as an operator runs it: a separate process, configured by a file and
// the standard TEMPORAL_* variables. It proves the backend at boot (the preflight), serves Starts,
// and exits cleanly on SIGTERM.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DispatchKubeflowClient } from '../../../src/client/dispatch-client.js';
import { startRequest } from '../../support/requests.js';
import { stackInfo } from '../support/context.js';
import { writeKubeconfig } from '../support/dispatch.js';
import { freshNamespace, kubeAccess, uniqueName, type TestNamespace } from '../support/kube.js';
import { temporalEnv } from '../support/temporal.js';

const repo = join(import.meta.dirname, '..', '..', '..');
let ns: TestNamespace;
let worker: ChildProcess;
let output = '';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', (code) => resolve(code))));

const taskQueue = uniqueName('worker-process');

beforeAll(async () => {
  ns = await freshNamespace('worker');
  const dir = mkdtempSync(join(tmpdir(), 'dk-worker-'));
  const config = join(dir, 'config.yaml');
  writeFileSync(
    config,
    [`namespace: ${ns.name}`, `kubeconfig: ${writeKubeconfig(kubeAccess('admin', ns.name))}`, `temporal:`, `  taskQueue: ${taskQueue}`, ''].join('\n'),
  );
  const args = ['bin/dispatch-kubeflow.js', 'worker', '--config', config];
  args.push('--metrics', `127.0.0.1:${await freePort()}`, '--dispatch-metrics', `127.0.0.1:${await freePort()}`);
  worker = spawn(process.execPath, args, {
    cwd: repo,
    env: { ...process.env, TEMPORAL_ADDRESS: stackInfo().temporal.address, TEMPORAL_NAMESPACE: stackInfo().temporal.namespace },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  worker.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  worker.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
});

afterAll(async () => {
  if (worker && worker.exitCode === null) worker.kill('SIGKILL');
  await ns?.dispose();
});

it('proves the backend at boot, serves a Start, and exits 0 on SIGTERM', async () => {
  await expect.poll(() => output, { timeout: 90_000, interval: 250 }).toMatch(/"preflight finished".*"start":true/);

  const env = await temporalEnv();
  try {
    const client = new DispatchKubeflowClient(env.client, { namespace: ns.name, taskQueue });
    const result = await client.startTrainJob(startRequest());
    expect(result.ref).toMatch(new RegExp(`^${ns.name}/dj-`));
  } finally {
    await env.teardown();
  }

  const started = Date.now();
  worker.kill('SIGTERM');
  expect(await exited(worker)).toBe(0);
  expect(Date.now() - started).toBeLessThan(20_000);
  expect(output).toMatch(/"worker stopped"/);
});
