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
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CODEC_KEY_ID_ENV, CODEC_KEYS_ENV, dataConverterFromEnv, ENCODING_ENCRYPTED } from '../../../src/codec/index.js';
import { Trainer } from '../../../src/model/constants.js';
import { ADDED_FIELD, ADDED_VALUE, AddedResultFieldCodec } from '../../support/added-result-field.js';
import { startDispatch, type DispatchHarness } from '../support/dispatch.js';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy.js';
import { freshKueueNamespace, freshNamespace, grantRestricted, kubeAccess, uniqueName, type TestNamespace } from '../support/kube.js';
import { REAL_KUEUE_CONFIG } from '../support/operations.js';
import { keyOf, runtimeFixtures, type RuntimeFixtures } from '../support/runtimes.js';
import { stackInfo } from '../support/context.js';
import { PREVIOUS_RELEASE, spawnPreviousWorker, type PreviousWorker } from '../support/previous-release.js';
import { treeOf } from '../../support/git-tree.js';
import { writeWorkerConfig } from '../support/worker-command.js';
import { DispatchKubeflowClient } from '../../../src/client/dispatch-client.js';
import { startRequest } from '../../support/requests.js';
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
 * tests run against today's worker; its worker (the same commit) serves today's clients.
 */
const PREVIOUS_GO_CLIENT = PREVIOUS_RELEASE;

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
  /** A plain-mode worker whose every result carries a field this release does not know. */
  let newerWorker: DispatchHarness;
  /** The proxied workers' CallBound: long enough for the calls that do answer on a loaded machine. */
  const proxiedCall = '10s';
  /** The Go client's tests of one plain-mode worker, run against `worker`: each must pass. */
  const CLIENT_TESTS = ['TestIntegrationPlainStartOpenWatchAndFind', 'TestIntegrationHoldReleaseStopAndACallThatAttaches', 'TestIntegrationCapabilitiesAndProbe'];
  async function clientTestsAgainst(worker: { namespace: string; taskQueue: string }, context: () => string = () => '') {
    const { code, output } = await go(['test', '-tags', 'integration', '-count=1', '-v', '-run', `^(${CLIENT_TESTS.join('|')})$`, './dispatchkubeflow'], {
      ...goEnv,
      DISPATCH_IT_PLAIN_NAMESPACE: worker.namespace,
      DISPATCH_IT_PLAIN_TASK_QUEUE: worker.taskQueue,
    });
    console.log(output);
    expect(code, `${output}${context()}`).toBe(0);
    expect(output).not.toMatch(/^--- SKIP/m);
    expect([...output.matchAll(/^--- PASS: (TestIntegration\w+)/gm)].map((m) => m[1]).sort()).toEqual([...CLIENT_TESTS].sort());
  }

  beforeAll(async () => {
    const namespace = async (made: Promise<TestNamespace>) => (namespaces.push(await made), namespaces.at(-1)!);
    const dataConverter = dataConverterFromEnv(codecEnv)!;
    const worker = async (options: Parameters<typeof startDispatch>[0]) => (workers.push(await startDispatch({ ...options, dataConverter })), workers.at(-1)!);

    const plainNs = await namespace(freshNamespace('go-plain'));
    const plain = (plainWorker = await worker({ namespace: plainNs.name, config: {} }));
    newerWorker = await startDispatch({
      namespace: plainNs.name,
      config: {},
      dataConverter: { payloadCodecs: [new AddedResultFieldCodec(), ...(dataConverter.payloadCodecs ?? [])] },
    });
    workers.push(newerWorker);
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
    const tree = treeOf(PREVIOUS_GO_CLIENT, ['go']);
    const previousDir = join(tree.dir, 'go');
    const { code, output } = await goIn(previousDir, ['test', '-tags', 'integration', '-count=1', '-v', '-run', '^TestIntegration', '.'], goEnv);
    console.log(output);
    const { written, passed } = integrationTests(join(previousDir, 'integration_test.go'), output);
    tree.remove();
    expect(code, output).toBe(0);
    expect(output).not.toMatch(/^--- SKIP/m);
    expect(written.length).toBeGreaterThan(10);
    expect(passed).toEqual(written);
    console.log(`previous Go client (${PREVIOUS_GO_CLIENT.slice(0, 7)}) against today's worker: ${passed.length} passed, 0 failed`);
  }, 900_000);

  it("today's Go client reads every result of a worker that adds a field to them (a newer release)", async () => {
    await clientTestsAgainst({ namespace: newerWorker.config.namespace, taskQueue: newerWorker.config.temporal.taskQueue });
    // What the Go client read past: the field, in every result of the newer worker's workflows (read
    // raw, with the codec's keys but no schema).
    const reader = new Client({ connection: newerWorker.env.client.connection, namespace: newerWorker.env.namespace ?? 'default', dataConverter: dataConverterFromEnv(codecEnv)! });
    const query = `TaskQueue = '${newerWorker.config.temporal.taskQueue}' AND ExecutionStatus = 'Completed'`;
    const types = new Set<string>();
    for await (const execution of reader.workflow.list({ query })) {
      const result = (await reader.workflow.getHandle(execution.workflowId, execution.runId).result()) as Record<string, unknown>;
      expect(result[ADDED_FIELD], execution.workflowId).toEqual(ADDED_VALUE);
      types.add(execution.type);
    }
    expect([...types].sort()).toEqual(expect.arrayContaining(['HoldTrainJob', 'OpenTrainJob', 'ReleaseTrainJob', 'StartTrainJob', 'StopTrainJob', 'TrainJobCapabilities']));
    console.log(`today's Go client against a worker adding a result field: ${CLIENT_TESTS.length} passed; results read past it: ${[...types].sort().join(', ')}`);
  }, 900_000);

  describe("today's clients against the previous release's worker", () => {
    let previous: PreviousWorker;
    let namespace: string;
    const taskQueue = uniqueName('previous-release');
    beforeAll(async () => {
      // In the plain worker's namespace, where the runtimes the Go tests name are.
      namespace = goEnv.DISPATCH_IT_PLAIN_NAMESPACE!;
      previous = await spawnPreviousWorker(writeWorkerConfig(namespace, taskQueue), codecEnv);
      // It bundles its workflow code, then proves the backend: minutes on a loaded machine.
      await previous.proven(420_000);
    }, 480_000);
    afterAll(async () => {
      if (!previous) return;
      previous.child.kill('SIGTERM');
      await previous.exited;
      previous.remove();
    });

    it(`today's Go client passes its Start, operations, Watch, capabilities and probe tests against the worker of ${PREVIOUS_RELEASE.slice(0, 7)}`, async () => {
      await clientTestsAgainst({ namespace, taskQueue }, () => `\n--- the previous worker:\n${previous.output()}`);
    }, 900_000);

    it("today's TypeScript client reads every result of the previous release's worker", async () => {
      const today = new DispatchKubeflowClient(plainWorker.client.client, { namespace, taskQueue });
      // A job that runs 20 s: still running while it is held, released and opened.
      const [kind, name] = goEnv.DISPATCH_IT_SLOW_RUNTIME!.split('/') as ['TrainingRuntime', string];
      const request = startRequest({ runtime: { kind, name } });
      const started = await today.startTrainJob(request);
      expect(started).toMatchObject({ namespace, mode: 'plain', runtimeCopy: started.name });
      const ref = { namespace, name: started.name, uid: started.uid };
      expect(await today.capabilities(request.spec)).toMatchObject({ procsPerNode: expect.any(Boolean) });
      expect(await today.probe()).toMatchObject({ reach: true, write: true, start: true });
      expect(await today.hold(ref)).toMatchObject({ ref, phase: 'Held', held: true });
      expect(await today.release(ref)).toMatchObject({ ref, phase: 'Gated', held: false });
      expect(await today.open(ref)).toMatchObject({ ref, phase: 'Running', held: false });
      expect(await today.stop(ref)).toMatchObject({ ref });
      expect(await today.watch(ref)).toMatchObject({ ref, phase: 'Absent' });
      // Answered by that worker: the only one polling this task queue.
      expect(previous.output()).toMatch(new RegExp(`"worker started".*"taskQueue":"${taskQueue}"`));
    }, 300_000);
  });

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
