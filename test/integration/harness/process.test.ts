// The process utilities every server runs under: process groups and the lifeline that stops a
// server when the process it is tied to dies, however it dies.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { freePorts, groupAlive, isAlive, spawnServer, stopServer, waitFor } from '../../../dev/harness/process.js';

const dir = mkdtempSync(join(tmpdir(), 'dispatch-process-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('a server tied to a lifeline stops within seconds of that process being killed with SIGKILL', async () => {
  const runner = spawn('sleep', ['300'], { stdio: 'ignore' });
  const server = spawnServer({ name: 'sleeper', command: 'sleep', args: ['300'], logFile: join(dir, 'lifeline.log'), lifeline: runner.pid });
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(server.hasExited()).toBe(false);
  runner.kill('SIGKILL');
  await waitFor(async () => (server.hasExited() ? true : undefined), { what: 'the lifeline to stop the server', timeoutMs: 5_000 });
  await stopServer(server);
});

it('stopServer stops the whole process group, escalating to SIGKILL', async () => {
  // A shell that ignores SIGTERM and has a child of its own.
  const server = spawnServer({
    name: 'stubborn',
    command: 'sh',
    args: ['-c', 'trap "" TERM; sleep 300 & wait'],
    logFile: join(dir, 'stubborn.log'),
  });
  await new Promise((resolve) => setTimeout(resolve, 200));
  await stopServer(server, 300);
  expect(server.hasExited()).toBe(true);
  expect(isAlive(server.pid)).toBe(false);
  // The group is gone too, the shell's own child included.
  expect(groupAlive(server.pid)).toBe(false);
});

it('waitFor reports a server that exits, with its log', async () => {
  const server = spawnServer({ name: 'crasher', command: 'sh', args: ['-c', 'echo boom: address already in use; exit 3'], logFile: join(dir, 'crash.log') });
  await expect(waitFor(async () => undefined, { what: 'never', timeoutMs: 5_000, server })).rejects.toThrow(/crasher exited.*\n.*address already in use/);
});

it('freePorts gives distinct ports', async () => {
  const ports = await freePorts(5);
  expect(new Set(ports).size).toBe(5);
});
