// `npm start` as the README runs it, pointed at this run's stack the way `npm start -- --help` says
// (TEMPORAL_ADDRESS and --config): it runs the example job from Start through Open to its outcome
// with a worker of its own, and returns once its work is done: it exits 0 within
// SHUTDOWN_BOUND_MS of its last line (README, "The two commands"). It once printed its last
// line and then sat silent for about a minute before the shell prompt came back.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { stackInfo } from '../support/context.js';
import { workflowBundle } from '../support/dispatch.js';
import { freshNamespace, uniqueName, type TestNamespace } from '../support/kube.js';
import { SHUTDOWN_BOUND_MS, writeWorkerConfig } from '../support/worker-command.js';

const repo = join(import.meta.dirname, '..', '..', '..');
let ns: TestNamespace;

beforeAll(async () => {
  ns = await freshNamespace('npm-start');
});
afterAll(async () => {
  await ns?.dispose();
});

interface Line {
  at: number;
  text: string;
}

interface NpmStart {
  /** Its stdout, line by line, each with when it came. */
  lines: Line[];
  stderr(): string;
  /** Its process group's id (npm's pid): a terminal's Ctrl-C signals the whole group. */
  group: number;
  /**
   * Resolves with npm's exit code (or signal) and the time once the output pipes close: when npm,
   * tsx and the node process that runs scripts/start.ts have all exited, not npm alone.
   */
  closed: Promise<{ code: number | string | null; at: number }>;
}

/** `npm start -- --config <file>` in a process group of its own, as a shell runs it. */
function npmStart(config: string, env: Record<string, string> = {}): NpmStart {
  const child = spawn('npm', ['start', '--', '--config', config], {
    cwd: repo,
    env: { ...process.env, TEMPORAL_ADDRESS: stackInfo().temporal.address, TEMPORAL_NAMESPACE: stackInfo().temporal.namespace, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const lines: Line[] = [];
  let stderr = '';
  let partial = '';
  child.stdout.on('data', (chunk: Buffer) => {
    const parts = (partial + chunk.toString()).split('\n');
    partial = parts.pop()!;
    for (const text of parts) lines.push({ at: Date.now(), text });
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const closed = new Promise<{ code: number | string | null; at: number }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code: code ?? signal, at: Date.now() })),
  );
  return { lines, stderr: () => stderr, group: child.pid!, closed };
}

const textOf = (lines: Line[]) => lines.map((l) => l.text).join('\n');

it('runs Start, Open and Watch, prints each answer, and exits 0 within its shutdown bound of its last line', async () => {
  const run = npmStart(writeWorkerConfig(ns.name, uniqueName('npm-start')));
  const { code, at: exitedAt } = await run.closed;
  const output = textOf(run.lines);

  expect(code, `npm start failed:\n${output}\n${run.stderr().slice(-4_000)}`).toBe(0);
  expect(output).toMatch(/^preflight: reach=true write=true start=true$/m);
  expect(output).toMatch(new RegExp(`^  Start: TrainJob ${ns.name}/dj-\\S+ \\(uid [0-9a-f-]+\\), mode plain$`, 'm'));
  expect(output).toMatch(/^ {2}Open: Running/m);
  expect(output).toMatch(/^ {2}Watch: Succeeded/m);
  const last = run.lines.filter((l) => l.text.trim() !== '').at(-1)!;
  expect(last.text).toMatch(/^ {2}Watch: Succeeded/);
  // Not a performance figure: a bound on holding the terminal after the work is done.
  expect(exitedAt - last.at, `exited ${exitedAt - last.at} ms after its last line`).toBeLessThan(SHUTDOWN_BOUND_MS);
}, 300_000);

it('stops within the same bound on Ctrl-C while it waits for a workflow, instead of waiting for results no worker will bring any more', async () => {
  // The prebuilt bundle only saves the webpack run: the worker and the waits are npm start's own.
  const bundle = join(mkdtempSync(join(tmpdir(), 'dk-npm-start-')), 'workflow-bundle.js');
  writeFileSync(bundle, (await workflowBundle()).code);
  const run = npmStart(writeWorkerConfig(ns.name, uniqueName('npm-start-int')), { DISPATCH_WORKFLOW_BUNDLE: bundle });
  // Start, Open and Watch take seconds from here: it is waiting for one of them when the signal comes.
  await expect.poll(() => textOf(run.lines), { timeout: 120_000, interval: 100 }).toMatch(/^preflight: /m);
  const interrupted = Date.now();
  process.kill(-run.group, 'SIGINT');
  const { at } = await Promise.race([
    run.closed,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`still running ${SHUTDOWN_BOUND_MS} ms after Ctrl-C:\n${textOf(run.lines)}`)), SHUTDOWN_BOUND_MS)),
  ]).catch((error: unknown) => {
    process.kill(-run.group, 'SIGKILL');
    throw error;
  });
  expect(at - interrupted).toBeLessThan(SHUTDOWN_BOUND_MS);
  expect(textOf(run.lines)).not.toMatch(/Watch: /);
}, 300_000);
