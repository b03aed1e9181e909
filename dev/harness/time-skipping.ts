// The time-skipping test server (Temporal's Java TestServer) for fast workflow tests: timers,
// retry backoffs and the server's activity timeouts pass in skipped time, so an activity task left
// unanswered until CallBound fails in well under a second. (A local activity's timeouts are the
// worker's, on the wall clock: time skipping does not shorten them.) TestWorkflowEnvironment.createTimeSkipping would download the server
// from the internet; here scripts/build-servers.sh fetches it from Maven Central into the cache
// (scripts/servers/temporal-test-server/pom.xml pins the version) and reports its launcher.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { temporal } from '@temporalio/proto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { repoRoot } from './paths.js';
import { SEARCH_ATTRIBUTE_KEYS, TEMPORAL_NAMESPACE, writeTemporalWrapper } from './temporal.js';

const TOOL = 'temporal-test-server';
const SCRIPT = join(repoRoot, 'scripts', 'build-servers.sh');
const BUILD_HINT =
  'run `bash scripts/build-servers.sh` (fetches it from Maven Central once, then cached; needs java and mvn)';

/** Runs the script; its stderr (a cold fetch's progress) goes to ours. */
function buildServers(args: string[]): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [SCRIPT, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    const out: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code: code ?? 1, stdout: Buffer.concat(out).toString('utf8') }));
  });
}

const launcherIn = (stdout: string) =>
  stdout
    .split('\n')
    .find((line) => line.startsWith(`${TOOL}=`))
    ?.slice(TOOL.length + 1)
    .trim();

/**
 * The launcher of the cached test server. When it is missing and every Go server is already built,
 * fetches it (about 45 s from an empty Maven repository); otherwise, or with `build: false`, the
 * error says what to run: the script would build the missing Go servers too, which takes minutes.
 */
export async function timeSkippingServer(options: { build?: boolean } = {}): Promise<string> {
  const printed = await buildServers(['--print']);
  const found = launcherIn(printed.stdout);
  if (found) return found;
  // --print exits 0 when every Go server is built (a missing test server only leaves its line out).
  const goServersBuilt = printed.code === 0;
  if (options.build === false || !goServersBuilt)
    throw new Error(`the time-skipping test server is not in the cache: ${BUILD_HINT}`);
  process.stderr.write('[time-skipping] fetching the test server from Maven Central (once) …\n');
  const built = await buildServers([]);
  const launcher = launcherIn(built.stdout);
  if (!launcher)
    throw new Error(
      `scripts/build-servers.sh did not report ${TOOL} (exit ${built.code}); its output is above`,
    );
  return launcher;
}

export interface TimeSkippingEnv {
  env: TestWorkflowEnvironment;
  /** The server's output. */
  logFile: string;
  /** Stops the server and removes its folder. */
  teardown(): Promise<void>;
}

/**
 * A time-skipping environment on the cached test server. The server's output goes to a log file in
 * a folder of its own, and a lifeline stops it if this process dies without a teardown. Time skips
 * while a client awaits a workflow's result (the SDK's TimeSkippingWorkflowClient).
 */
export async function createTimeSkippingEnv(options: { build?: boolean } = {}): Promise<TimeSkippingEnv> {
  const launcher = await timeSkippingServer(options);
  const dir = mkdtempSync(join(tmpdir(), `dispatch-kubeflow-${process.pid}-time-skipping-`));
  const logFile = join(dir, 'test-server.log');
  const path = writeTemporalWrapper({
    binary: launcher,
    logFile,
    lifeline: process.pid,
    path: join(dir, 'test-server.sh'),
  });
  const create = () =>
    TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path } } });
  let env: TestWorkflowEnvironment;
  try {
    // The SDK waits 5 s for the server to answer; a JVM on a loaded machine can take longer (it took
    // more than 5 s twice in a row with a load of 23 on 2 cores), so it is tried up to four times.
    env = await create()
      .catch(() => create())
      .catch(() => create())
      .catch(() => create());
  } catch (error) {
    const log = readFileSync(logFile, { encoding: 'utf8', flag: 'a+' }).slice(-2000);
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`the time-skipping test server did not start (${String(error)}); its output:\n${log}`, {
      cause: error,
    });
  }
  // The workflows set dispatch's search attributes; a server without them fails every workflow task.
  const keyword = temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD;
  await env.connection.operatorService
    .addSearchAttributes({
      namespace: TEMPORAL_NAMESPACE,
      searchAttributes: Object.fromEntries(SEARCH_ATTRIBUTE_KEYS.map((key) => [key.name, keyword])),
    })
    .catch(async (error: unknown) => {
      await env.teardown();
      rmSync(dir, { recursive: true, force: true });
      throw error;
    });
  return {
    env,
    logFile,
    async teardown() {
      try {
        await env.teardown();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
