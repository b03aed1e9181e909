// Starting and stopping the local servers. Every server gets its own process group, so a stop
// signals the server and anything it spawned, and a Ctrl-C on the terminal reaches the launcher
// first, which then stops the servers in order. A server tied to a "lifeline" pid also has a
// watcher that stops it when that pid is gone, so even a test runner killed with SIGKILL leaves
// nothing behind.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';

export interface SpawnOptions {
  /** Short name used in messages, e.g. "etcd". */
  name: string;
  command: string;
  args: string[];
  /** stdout and stderr go here (the file is truncated first). */
  logFile: string;
  /** Stop the server when the process with this pid is gone (checked every second). */
  lifeline?: number;
  /** Leave the server running after this process exits (dev:up). */
  detach?: boolean;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

export interface ServerProcess {
  readonly name: string;
  readonly pid: number;
  readonly logFile: string;
  /** Resolves with the exit code (or the signal's name) once the process has exited. */
  readonly exited: Promise<number | string>;
  /** Whether the process has exited. */
  readonly hasExited: () => boolean;
}

/**
 * The lifeline wrapper: forks a watcher, then execs the server, so the pid the launcher holds is
 * the server's own. The watcher polls both the lifeline pid and the server; when the lifeline is
 * gone it sends SIGTERM, then SIGKILL after 5 s. Its output goes nowhere, so it never holds a
 * log or pipe open.
 */
export const LIFELINE_SCRIPT = [
  'watch=$1; shift',
  '( exec >/dev/null 2>&1 </dev/null',
  '  while kill -0 "$watch" 2>/dev/null && kill -0 $$ 2>/dev/null; do sleep 1; done',
  '  kill -TERM $$ 2>/dev/null && { sleep 5; kill -KILL $$ 2>/dev/null; } ) &',
  'exec "$@"',
].join('\n');

/** Servers this process started that have not exited: what a signal handler must kill. */
const running = new Set<ServerProcess>();

/**
 * Kills every server this process started and that still runs, synchronously: for exit and
 * signal handlers, where nothing asynchronous runs any more. The orderly path is stopServer.
 */
export function killStartedServers(signal: NodeJS.Signals = 'SIGKILL'): void {
  for (const server of running) signalGroup(server.pid, signal);
}

/** Starts a server in its own process group, its output going to its log file. */
export function spawnServer(options: SpawnOptions): ServerProcess {
  const { command, args } =
    options.lifeline === undefined
      ? options
      : { command: '/bin/sh', args: ['-c', LIFELINE_SCRIPT, 'lifeline', String(options.lifeline), options.command, ...options.args] };
  const log = openSync(options.logFile, 'w');
  let exitedWith: number | string | undefined;
  try {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['ignore', log, log],
      detached: true,
    });
    const exited = new Promise<number | string>((resolve, reject) => {
      child.once('error', (err) => reject(new Error(`${options.name}: cannot start ${options.command}: ${err.message}`)));
      child.once('exit', (code, signal) => {
        exitedWith = code ?? signal ?? 'unknown';
        resolve(exitedWith);
      });
    });
    // A spawn error surfaces through `exited`; keep it from being an unhandled rejection meanwhile.
    exited.catch(() => undefined);
    if (child.pid === undefined) throw new Error(`${options.name}: cannot start ${options.command}`);
    if (options.detach) child.unref();
    const server = { name: options.name, pid: child.pid, logFile: options.logFile, exited, hasExited: () => exitedWith !== undefined };
    running.add(server);
    void exited.finally(() => running.delete(server)).catch(() => undefined);
    return server;
  } finally {
    closeSync(log);
  }
}

/** /proc/<pid>/stat's state and process group, or undefined without /proc (not Linux) or process. */
function procStat(pid: number | string): { state: string; pgrp: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses; it ends at the last ")".
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return state && pgrp ? { state, pgrp: Number(pgrp) } : undefined;
  } catch {
    return undefined;
  }
}

const hasProc = existsSync('/proc/self/stat');

/**
 * Whether a process with this pid runs. A zombie does not: a detached server that exits is
 * reparented to pid 1, which may reap it late.
 */
export function isAlive(pid: number): boolean {
  if (hasProc) {
    const stat = procStat(pid);
    return stat !== undefined && stat.state !== 'Z';
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Sends a signal to a server's process group, ignoring a group that is already gone. */
export function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}

/**
 * Stops a server: SIGTERM to its group, then SIGKILL to the group after `graceMs`. Works on a
 * pid alone, for servers another process started (dev:down).
 */
export async function stopServer(target: ServerProcess | number, graceMs = 10_000): Promise<void> {
  const pid = typeof target === 'number' ? target : target.pid;
  const gone = typeof target === 'number' ? () => !isAlive(pid) : target.hasExited;
  if (gone()) return;
  signalGroup(pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (!gone() && Date.now() < deadline) await sleep(50);
  if (!gone()) {
    signalGroup(pid, 'SIGKILL');
    while (!gone()) await sleep(50);
  }
  // The watcher and any helper the server spawned share its group; a last SIGKILL clears them.
  signalGroup(pid, 'SIGKILL');
  const groupDeadline = Date.now() + 2_000;
  while (groupAlive(pid) && Date.now() < groupDeadline) await sleep(20);
}

/** Whether any process of the group led by `pid` still runs (zombies do not count). */
export function groupAlive(pid: number): boolean {
  if (hasProc) {
    return readdirSync('/proc').some((entry) => {
      if (!/^\d+$/.test(entry)) return false;
      const stat = procStat(entry);
      return stat?.pgrp === pid && stat.state !== 'Z';
    });
  }
  try {
    process.kill(-pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The last lines of a log file, for error messages. */
export function logTail(file: string, lines = 20): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

export interface WaitOptions {
  /** What is awaited, for the timeout message. */
  what: string;
  timeoutMs: number;
  intervalMs?: number;
  /** Fail at once, with its log's tail, if this server exits meanwhile. */
  server?: ServerProcess;
}

/**
 * Polls `probe` until it returns a value other than undefined. Probe errors count as "not yet";
 * the last one is reported on timeout.
 */
export async function waitFor<T>(probe: () => Promise<T | undefined>, options: WaitOptions): Promise<T> {
  const deadline = Date.now() + options.timeoutMs;
  let lastError: unknown;
  for (;;) {
    if (options.server?.hasExited()) {
      throw new Error(
        `${options.server.name} exited while waiting for ${options.what}; log ${options.server.logFile}:\n${logTail(options.server.logFile)}`,
      );
    }
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() >= deadline) {
      const cause = lastError instanceof Error ? `: ${lastError.message}` : '';
      const log = options.server ? `; log ${options.server.logFile}:\n${logTail(options.server.logFile)}` : '';
      throw new Error(`timed out after ${options.timeoutMs} ms waiting for ${options.what}${cause}${log}`);
    }
    await sleep(options.intervalMs ?? 100);
  }
}

/**
 * Distinct free TCP ports on 127.0.0.1. They are free when chosen; a server that loses a race for
 * one fails to start with "address already in use" in its log.
 */
export async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
          const server = createServer();
          server.once('error', reject);
          server.listen(0, '127.0.0.1', () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((s) => {
    const address = s.address();
    if (address === null || typeof address === 'string') throw new Error('no port assigned');
    return address.port;
  });
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  return ports;
}

/** Whether a TCP port on 127.0.0.1 can be bound now. */
export async function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
