// The Go client (go/) against the real worker: this file starts a plain-mode and a Kueue-mode
// worker, both encrypting payloads, and runs go/integration_test.go (`go test -tags integration`)
// on them, passing what it needs in the environment. Off unless DISPATCH_GO_INTEGRATION=1: it needs
// the machine's Go, and its first run builds the Temporal Go SDK (minutes, into Go's own cache).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CODEC_KEY_ID_ENV, CODEC_KEYS_ENV, dataConverterFromEnv } from '../../../src/codec/index.js';
import { startDispatch, type DispatchHarness } from '../support/dispatch.js';
import { freshKueueNamespace, freshNamespace, kubeAccess, type TestNamespace } from '../support/kube.js';
import { REAL_KUEUE_CONFIG } from '../support/operations.js';
import { keyOf, runtimeFixtures, type RuntimeFixtures } from '../support/runtimes.js';
import { stackInfo } from '../support/context.js';
import { failWith, runFor } from '../operations/support.js';

const goDir = join(import.meta.dirname, '..', '..', '..', 'go');
const enabled = process.env.DISPATCH_GO_INTEGRATION === '1';

/** Runs a command to its end: its exit code and its output (stdout and stderr, interleaved). */
function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

describe.skipIf(!enabled)('the Go client against the real worker (go/integration_test.go)', () => {
  const codecEnv = { [CODEC_KEYS_ENV]: `go-it:${randomBytes(32).toString('base64')}`, [CODEC_KEY_ID_ENV]: 'go-it' };
  let plainNs: TestNamespace;
  let kueueNs: TestNamespace;
  let plain: DispatchHarness;
  let kueue: DispatchHarness;
  let runtimes: RuntimeFixtures;
  let goEnv: NodeJS.ProcessEnv;

  beforeAll(async () => {
    plainNs = await freshNamespace('go-plain');
    kueueNs = await freshKueueNamespace('go-kueue');
    const dataConverter = dataConverterFromEnv(codecEnv);
    plain = await startDispatch({ namespace: plainNs.name, config: {}, ...(dataConverter ? { dataConverter } : {}) });
    kueue = await startDispatch({ namespace: kueueNs.name, config: REAL_KUEUE_CONFIG, ...(dataConverter ? { dataConverter } : {}) });
    runtimes = runtimeFixtures(plain.kube);
    const failing = await runtimes.namespaced(plainNs.name, 'fail125', failWith(125));
    const slow = await runtimes.namespaced(plainNs.name, 'slow', runFor('20s'));
    const access = kubeAccess('admin');
    const caFile = join(mkdtempSync(join(tmpdir(), 'dk-go-it-')), 'ca.pem');
    writeFileSync(caFile, access.caPem ?? '');
    goEnv = {
      ...process.env,
      ...codecEnv,
      DISPATCH_IT_TEMPORAL_ADDRESS: stackInfo().temporal.address,
      DISPATCH_IT_TEMPORAL_NAMESPACE: stackInfo().temporal.namespace,
      DISPATCH_IT_PLAIN_NAMESPACE: plain.config.namespace,
      DISPATCH_IT_PLAIN_TASK_QUEUE: plain.config.temporal.taskQueue,
      DISPATCH_IT_KUEUE_NAMESPACE: kueue.config.namespace,
      DISPATCH_IT_KUEUE_TASK_QUEUE: kueue.config.temporal.taskQueue,
      DISPATCH_IT_CALL_BOUND: plain.config.timeouts.call,
      DISPATCH_IT_KUBE_SERVER: access.server,
      DISPATCH_IT_KUBE_TOKEN: access.token,
      DISPATCH_IT_KUBE_CA_FILE: caFile,
      DISPATCH_IT_RUNTIME: 'ClusterTrainingRuntime/dispatch-kind',
      DISPATCH_IT_FAIL_RUNTIME: keyOf(failing),
      DISPATCH_IT_SLOW_RUNTIME: keyOf(slow),
    };
  });
  afterAll(async () => {
    await plain?.close();
    await kueue?.close();
    await runtimes?.dispose();
    await plainNs?.dispose();
    await kueueNs?.dispose();
  });

  it('every integration test of the Go client passes, none skipped', async () => {
    const { code, output } = await run('go', ['test', '-tags', 'integration', '-count=1', '-v', '-run', '^TestIntegration', '.'], goDir, goEnv);
    console.log(output);
    const written = [...readFileSync(join(goDir, 'integration_test.go'), 'utf8').matchAll(/^func (TestIntegration\w+)\(/gm)].map((m) => m[1]);
    const passed = [...output.matchAll(/^--- PASS: (TestIntegration\w+)/gm)].map((m) => m[1]);
    expect(code, output).toBe(0);
    expect(output).not.toMatch(/^--- SKIP/m);
    expect(passed.sort()).toEqual(written.sort());
    console.log(`go client integration: ${passed.length} passed, 0 failed`);
  }, 900_000);
});
