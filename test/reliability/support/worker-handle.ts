// The test side of worker-process.ts: starts a worker as its own OS process (own process group, tied
// to the test runner by the harness's lifeline), waits for its ready line, kills it with SIGKILL or
// stops it with SIGTERM, and reads its peak RSS from /proc.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { repoRoot } from '../../../dev/harness/paths.js';
import { spawnServer, stopServer, waitFor, type ServerProcess } from '../../../dev/harness/process.js';
import type { Config } from '../../../src/model/config.js';
import { workflowBundle } from '../../integration/support/dispatch.js';

const ENTRY = fileURLToPath(new URL('./worker-process.ts', import.meta.url));

export interface WorkerProcessOptions {
  config: Config;
  /** host:port of the Temporal frontend. */
  temporalAddress: string;
  temporalNamespace?: string;
  /** The prebuilt workflow bundle (bundleFile()). */
  bundlePath: string;
  /** Where the worker's log goes: `<logDir>/<name>.log`. */
  logDir: string;
  name: string;
  requestTimeoutMs?: number;
  /** "proven" (default) sets the gates; "preflight" runs ProbeBackend first; "product" runs as the product's worker (worker-process.ts). */
  gates?: 'proven' | 'preflight' | 'product';
  /** More environment for the process (test/chaos/broken-worker.ts breaks it on purpose). */
  env?: Record<string, string>;
}

export interface WorkerProcess {
  readonly pid: number;
  readonly logFile: string;
  /** Milliseconds from spawning the process to its ready line. */
  readonly startMs: number;
  /** kill -9, and wait until the process is gone. */
  kill(): Promise<void>;
  /** SIGTERM: the worker shuts down cleanly (SIGKILL after 10 s). */
  stop(): Promise<void>;
  /** Peak resident set size (VmHWM) in KiB, read now; undefined once the process is gone. */
  peakRssKiB(): number | undefined;
  readonly process: ServerProcess;
}

/** /proc/<pid>/status field in KiB ("VmHWM", "VmRSS"). */
export function procStatusKiB(pid: number, field: string): number | undefined {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(
      readFileSync(`/proc/${pid}/status`, 'utf8'),
    );
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

let bundlePath: Promise<string> | undefined;

/** The workflow bundle as a file, built once per test file's process and shared by its workers. */
export function bundleFile(dir: string): Promise<string> {
  bundlePath ??= workflowBundle().then(({ code }) => {
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `workflow-bundle-${process.pid}.js`);
    writeFileSync(file, code);
    return file;
  });
  return bundlePath;
}

export async function startWorkerProcess(options: WorkerProcessOptions): Promise<WorkerProcess> {
  mkdirSync(options.logDir, { recursive: true });
  const logFile = join(options.logDir, `${options.name}.log`);
  const t0 = Date.now();
  const child = spawnServer({
    name: options.name,
    command: process.execPath,
    args: ['--import', 'tsx', ENTRY],
    logFile,
    lifeline: process.pid,
    cwd: repoRoot,
    env: {
      ...process.env,
      DISPATCH_RELIABILITY_CONFIG: JSON.stringify(options.config),
      DISPATCH_RELIABILITY_GATES: options.gates ?? 'proven',
      DISPATCH_WORKFLOW_BUNDLE: options.bundlePath,
      TEMPORAL_ADDRESS: options.temporalAddress,
      TEMPORAL_NAMESPACE: options.temporalNamespace ?? 'default',
      ...(options.requestTimeoutMs
        ? { DISPATCH_RELIABILITY_REQUEST_TIMEOUT_MS: String(options.requestTimeoutMs) }
        : {}),
      ...options.env,
    },
  });
  try {
    await waitFor(
      () => Promise.resolve(readFileSync(logFile, 'utf8').includes('{"ready":true') ? true : undefined),
      {
        what: `worker ${options.name} to poll`,
        timeoutMs: 120_000,
        intervalMs: 50,
        server: child,
      },
    );
  } catch (error) {
    await stopServer(child, 0);
    throw error;
  }
  const startMs = Date.now() - t0;
  return {
    pid: child.pid,
    logFile,
    startMs,
    process: child,
    async kill() {
      try {
        process.kill(child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
      await child.exited;
    },
    stop: () => stopServer(child),
    peakRssKiB: () => procStatusKiB(child.pid, 'VmHWM'),
  };
}
