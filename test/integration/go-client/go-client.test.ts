// The Go client (go/) against the real worker: this file starts a plain-mode and a Kueue-mode
// worker, and workers that refuse on demand (no gates yet: ErrUnreachable; a restricted identity:
// ErrReadOnly; TrainJob creates whose answers a fault proxy drops, or which it resets:
// ErrOutcomeUnknown), all encrypting payloads, and runs go/dispatchkubeflow/integration_test.go
// (`go test -tags integration`) on them, passing what it needs in the environment; then the example
// program go/examples/start-open-watch on the plain worker; then the previous release's Go client
// (the go/ tree at PREVIOUS_GO_CLIENT, its own integration tests) against today's worker, the
// version skew of docs/contract.md §10. Go runs through scripts/go-client.sh, whose module and
// build caches npm test fills before the tests (a cold one: the first run here compiles the
// Temporal Go SDK, a few minutes on two cores).
import { execFileSync } from 'node:child_process';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CODEC_KEY_ID_ENV, CODEC_KEYS_ENV, dataConverterFromEnv, ENCODING_ENCRYPTED } from '../../../src/codec/index.js';
import { Trainer } from '../../../src/model/constants.js';
import { startDispatch, type DispatchHarness } from '../support/dispatch.js';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy.js';
import { freshKueueNamespace, freshNamespace, grantRestricted, kubeAccess, type TestNamespace } from '../support/kube.js';
import { REAL_KUEUE_CONFIG } from '../support/operations.js';
import { keyOf, runtimeFixtures, type RuntimeFixtures } from '../support/runtimes.js';
import { stackInfo } from '../support/context.js';
import { failWith, runFor } from '../operations/support.js';

const repoRoot = join(import.meta.dirname, '..', '..', '..');
const goDir = join(repoRoot, 'go');
/** `go <args>` in go/ with the caches of scripts/go-client.sh. */
const go = (args: string[], env: NodeJS.ProcessEnv) => run('bash', [join(repoRoot, 'scripts', 'go-client.sh'), 'go', ...args], goDir, env);
/** `go <args>` in another copy of the module, with the same caches. */
const goIn = (dir: string, args: string[], env: NodeJS.ProcessEnv) =>
  run('bash', [join(repoRoot, 'scripts', 'go-client.sh'), 'go-in', dir, ...args], dir, env);
/**
 * The previous release of the Go client: the last commit of go/ before the package moved to
 * go/dispatchkubeflow (strict result decoding, package at the module's root). Its own integration
 * tests run against today's worker.
 */
const PREVIOUS_GO_CLIENT = '4b127a846198beb2e6cf1312adad7ad9fcb650fd';

/** The TestIntegration* functions a Go file declares, and those a `go test -v` output passed. */
function integrationTests(file: string, output: string): { written: string[]; passed: string[] } {
  const written = [...readFileSync(file, 'utf8').matchAll(/^func (TestIntegration\w+)\(/gm)].map((m) => m[1]!);
  const passed = [...output.matchAll(/^--- PASS: (TestIntegration\w+)/gm)].map((m) => m[1]!);
  return { written: written.sort(), passed: passed.sort() };
}

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

describe('the Go client against the real worker (go/dispatchkubeflow/integration_test.go)', () => {
  const codecEnv = { [CODEC_KEYS_ENV]: `go-it:${randomBytes(32).toString('base64')}`, [CODEC_KEY_ID_ENV]: 'go-it' };
  const namespaces: TestNamespace[] = [];
  const workers: DispatchHarness[] = [];
  let proxy: FaultProxy | undefined;
  let runtimes: RuntimeFixtures;
  let goEnv: NodeJS.ProcessEnv;
  let plainWorker: DispatchHarness;
  /** The proxied workers' CallBound: long enough for the calls that do answer on a loaded machine. */
  const proxiedCall = '10s';

  beforeAll(async () => {
    const namespace = async (made: Promise<TestNamespace>) => (namespaces.push(await made), namespaces.at(-1)!);
    const dataConverter = dataConverterFromEnv(codecEnv)!;
    const worker = async (options: Parameters<typeof startDispatch>[0]) => (workers.push(await startDispatch({ ...options, dataConverter })), workers.at(-1)!);

    const plainNs = await namespace(freshNamespace('go-plain'));
    const plain = (plainWorker = await worker({ namespace: plainNs.name, config: {} }));
    const kueue = await worker({ namespace: (await namespace(freshKueueNamespace('go-kueue'))).name, config: REAL_KUEUE_CONFIG });
    // No preflight has run: every Start is ErrUnreachable naming the reach gate.
    const unreachable = await worker({ namespace: plainNs.name, config: {}, gates: 'none' });
    // The restricted identity may make runtime copies but not TrainJobs: ErrReadOnly at step 6.
    const readOnlyNs = await namespace(freshNamespace('go-readonly'));
    await grantRestricted(readOnlyNs.name, 'runtimes-only', [
      { apiGroups: [Trainer.group], resources: ['trainingruntimes'], verbs: ['create', 'get', 'patch', 'delete'] },
      { apiGroups: [Trainer.group], resources: ['trainjobs'], verbs: ['get'] },
    ]);
    const readOnly = await worker({ namespace: readOnlyNs.name, access: kubeAccess('restricted', readOnlyNs.name) });
    // TrainJob creates through a fault proxy: in one namespace each lands and its answer is lost,
    // in the other each is reset before it reaches the API server. Both end ErrOutcomeUnknown.
    proxy = await startFaultProxy();
    const proxied = async (prefix: string, action: 'drop-response' | 'reset') => {
      const ns = await namespace(freshNamespace(prefix));
      proxy!.inject({ method: 'POST', path: `/apis/${Trainer.group}/${Trainer.version}/namespaces/${ns.name}/${Trainer.trainJobPlural}`, times: Infinity, action });
      return worker({
        namespace: ns.name,
        access: proxy!.accessFor({ ...proxy!.accessFor(), namespace: ns.name }),
        config: { timeouts: { call: proxiedCall, workload: '5s' } },
        requestTimeoutMs: 1_000,
      });
    };
    const lost = await proxied('go-lost', 'drop-response');
    const reset = await proxied('go-reset', 'reset');
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
      DISPATCH_IT_UNREACHABLE_NAMESPACE: unreachable.config.namespace,
      DISPATCH_IT_UNREACHABLE_TASK_QUEUE: unreachable.config.temporal.taskQueue,
      DISPATCH_IT_READONLY_NAMESPACE: readOnly.config.namespace,
      DISPATCH_IT_READONLY_TASK_QUEUE: readOnly.config.temporal.taskQueue,
      DISPATCH_IT_LOST_NAMESPACE: lost.config.namespace,
      DISPATCH_IT_LOST_TASK_QUEUE: lost.config.temporal.taskQueue,
      DISPATCH_IT_RESET_NAMESPACE: reset.config.namespace,
      DISPATCH_IT_RESET_TASK_QUEUE: reset.config.temporal.taskQueue,
      DISPATCH_IT_PROXIED_CALL_BOUND: proxiedCall,
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
    for (const worker of workers) await worker.close();
    await runtimes?.dispose();
    await proxy?.close();
    for (const ns of namespaces) await ns.dispose();
  });

  it('every integration test of the Go client passes, none skipped', async () => {
    const { code, output } = await go(['test', '-tags', 'integration', '-count=1', '-v', '-run', '^TestIntegration', './dispatchkubeflow'], goEnv);
    console.log(output);
    const { written, passed } = integrationTests(join(goDir, 'dispatchkubeflow', 'integration_test.go'), output);
    expect(code, output).toBe(0);
    expect(output).not.toMatch(/^--- SKIP/m);
    expect(written.length).toBeGreaterThan(10);
    expect(passed).toEqual(written);
    console.log(`go client integration: ${passed.length} passed, 0 failed`);
  }, 900_000);

  it("the previous release's Go client passes its own integration tests against today's worker", async () => {
    // Its go/ tree, as committed, in a folder of its own outside the work tree.
    const dir = mkdtempSync(join(tmpdir(), 'dk-go-previous-'));
    const archive = execFileSync('git', ['archive', '--format=tar', PREVIOUS_GO_CLIENT, 'go'], { cwd: repoRoot, maxBuffer: 64 << 20 });
    execFileSync('tar', ['-x', '-C', dir], { input: archive });
    const previousDir = join(dir, 'go');
    const { code, output } = await goIn(previousDir, ['test', '-tags', 'integration', '-count=1', '-v', '-run', '^TestIntegration', '.'], goEnv);
    console.log(output);
    const { written, passed } = integrationTests(join(previousDir, 'integration_test.go'), output);
    rmSync(dir, { recursive: true, force: true });
    expect(code, output).toBe(0);
    expect(output).not.toMatch(/^--- SKIP/m);
    expect(written.length).toBeGreaterThan(10);
    expect(passed).toEqual(written);
    console.log(`previous Go client (${PREVIOUS_GO_CLIENT.slice(0, 7)}) against today's worker: ${passed.length} passed, 0 failed`);
  }, 900_000);

  it('the example program runs a job from Start through Open to Succeeded, payloads encrypted', async () => {
    const { code, output } = await go(['run', './examples/start-open-watch', '-runtime', goEnv.DISPATCH_IT_RUNTIME!, '-timeout', '3m'], {
      ...goEnv,
      TEMPORAL_ADDRESS: goEnv.DISPATCH_IT_TEMPORAL_ADDRESS,
      TEMPORAL_NAMESPACE: goEnv.DISPATCH_IT_TEMPORAL_NAMESPACE,
      K8S_NAMESPACE: goEnv.DISPATCH_IT_PLAIN_NAMESPACE,
      DISPATCH_TASK_QUEUE: goEnv.DISPATCH_IT_PLAIN_TASK_QUEUE,
    });
    console.log(output);
    expect(code, output).toBe(0);
    const namespace = goEnv.DISPATCH_IT_PLAIN_NAMESPACE!;
    expect(output).toMatch(new RegExp(`^  Start: TrainJob ${namespace}/dj-[0-9a-z]{26}-s12 \\(uid [0-9a-f-]{36}\\), mode plain$`, 'm'));
    expect(output).toMatch(/^ {2}Open: Running: /m);
    expect(output).toMatch(/^ {2}Watch: Succeeded, AllJobsCompleted, at \d{4}-\d\d-\d\dT/m);
    // Each workflow's input, as the Temporal server stores it (read by a client without the codec): sealed.
    const ids = [...output.matchAll(/^workflow (\S+)$/gm)].map((m) => m[1]!);
    expect(ids).toHaveLength(3);
    for (const id of ids) {
      const history = await plainWorker.env.client.workflow.getHandle(id).fetchHistory();
      const input = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads ?? [];
      expect(input.map((p) => Buffer.from(p.metadata?.encoding ?? []).toString()), id).toEqual([ENCODING_ENCRYPTED]);
    }
  }, 600_000);
});
