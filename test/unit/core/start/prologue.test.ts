// The prologue, really run under the shells a container's /bin/sh may be: the job's arguments
// reach the program byte for byte, WorkDir is entered, and a missing WorkDir exits 125 with one
// line on stderr (docs/start.md, spec table, WorkDir; docs/contract.md §3).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { PROLOGUE, trainerCommand } from '../../../../src/core/start/prologue.js';
import { Dispatch, EnvVars, Limits } from '../../../../src/model/constants.js';
import { noNulArb } from '../../../golden/requests.js';

const PRINTF = ['/usr/bin/printf', '/bin/printf'].find(existsSync)!;
// Every POSIX shell on this machine: dash is Debian's /bin/sh, bash --posix stands in for others.
const SHELLS = [
  ['/bin/sh'],
  ...['/usr/bin/dash', '/bin/dash']
    .filter(existsSync)
    .slice(0, 1)
    .map((s) => [s]),
  ...['/usr/bin/bash', '/bin/bash']
    .filter(existsSync)
    .slice(0, 1)
    .map((s) => [s, '--posix']),
  ...['/bin/busybox', '/usr/bin/busybox']
    .filter(existsSync)
    .slice(0, 1)
    .map((s) => [s, 'sh']),
].filter(
  (shell, i, all) => all.findIndex((other) => realpathSync(other[0]!) === realpathSync(shell[0]!)) === i,
);

const scratch = mkdtempSync(path.join(tmpdir(), 'dispatch-prologue-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Runs the rendered command with `shell` in place of /bin/sh, as the container would. */
function run(shell: string[], command: string[], env: Record<string, string> = {}) {
  const [, ...rest] = trainerCommand(command);
  const [file, ...args] = [...shell, ...rest];
  // stdin is not a socket (Node's default), or bash takes itself for an rshd child and reads ~/.bashrc.
  const result = spawnSync(file!, args, {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
    cwd: scratch,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr.toString('utf8') };
}

/** Prints each argument followed by NUL; the leading marker keeps printf from printing once for none. */
const echoArgs = (args: string[]) => [PRINTF, '%s\\0', 'marker', ...args];
/** The arguments echoArgs printed. */
const printed = (stdout: Buffer) => stdout.toString('utf8').split('\u0000').slice(1, -1);

describe.each(SHELLS.map((s) => [s.join(' '), s] as const))('the prologue under %s', (_name, shell) => {
  it('docs/start.md, spec table, Command: passes every argument byte for byte', () => {
    const args = [
      'with space',
      "quo'te",
      'dq"uote',
      '$HOME',
      '${PATH}',
      '`id`',
      '$(id)',
      '*',
      '?',
      '[a]',
      '~',
      'back\\slash',
      'line\nbreak',
      '',
      '  ',
      '-n',
      '--',
      ';',
      '|',
      '&&',
      'tab\there',
      'naïve',
      '日本語',
      '🚀',
      '\r',
    ];
    const result = run(shell, echoArgs(args));
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(printed(result.stdout)).toEqual(args);
  });

  it('passes arbitrary arguments byte for byte (property)', () => {
    fc.assert(
      fc.property(fc.array(noNulArb, { maxLength: 8 }), (args) => {
        const result = run(shell, echoArgs(args));
        expect(result.status).toBe(0);
        expect(printed(result.stdout)).toEqual(args);
      }),
      { numRuns: 40 },
    );
  });

  it('passes the most items the adapter allows in a command (124)', () => {
    const args = Array.from({ length: Limits.commandMax - 3 }, (_, i) => `arg ${i}`);
    expect(echoArgs(args)).toHaveLength(Limits.commandMax);
    expect(printed(run(shell, echoArgs(args)).stdout)).toEqual(args);
  });

  it("replaces itself with the program: its exit status is the job's", () => {
    expect(run(shell, ['/bin/sh', '-c', 'exit 7']).status).toBe(7);
  });

  it('docs/start.md, spec table, WorkDir: enters DISPATCH_K8S_WORKDIR', () => {
    const dir = path.join(scratch, 'work dir $x');
    mkdirSync(dir, { recursive: true });
    const result = run(shell, ['/bin/pwd', '-P'], { [EnvVars.workDir]: dir });
    expect(result.status).toBe(0);
    expect(result.stdout.toString()).toBe(`${realpathSync(dir)}\n`);
  });

  it('enters a relative WorkDir without printing it, even with CDPATH set', () => {
    mkdirSync(path.join(scratch, 'rel'), { recursive: true });
    const result = run(shell, ['/bin/pwd', '-P'], { [EnvVars.workDir]: 'rel', CDPATH: tmpdir() });
    expect(result.stdout.toString()).toBe(`${realpathSync(path.join(scratch, 'rel'))}\n`);
  });

  it('stays where it is when DISPATCH_K8S_WORKDIR is unset or empty', () => {
    expect(run(shell, ['/bin/pwd', '-P']).stdout.toString()).toBe(`${realpathSync(scratch)}\n`);
    expect(run(shell, ['/bin/pwd', '-P'], { [EnvVars.workDir]: '' }).stdout.toString()).toBe(
      `${realpathSync(scratch)}\n`,
    );
  });

  it('docs/start.md, spec table, WorkDir: a missing directory makes the container exit 125 with one line on stderr', () => {
    const missing = path.join(scratch, 'no such dir');
    const result = run(shell, [PRINTF, 'ran'], { [EnvVars.workDir]: missing });
    expect(result.status).toBe(Dispatch.workDirExitCode);
    expect(result.stdout.toString()).toBe('');
    expect(result.stderr).toBe(`${Dispatch.prologueName}: cannot enter ${EnvVars.workDir} ${missing}\n`);
  });

  it('keeps the message to one line when the missing WorkDir holds a newline', () => {
    const result = run(shell, [PRINTF, 'ran'], { [EnvVars.workDir]: path.join(scratch, 'a\nb') });
    expect(result.status).toBe(Dispatch.workDirExitCode);
    expect(result.stderr).toBe(`${Dispatch.prologueName}: cannot enter ${EnvVars.workDir}\n`);
  });

  it('refuses a WorkDir that is a file', () => {
    const result = run(shell, [PRINTF, 'ran'], { [EnvVars.workDir]: PRINTF });
    expect(result.status).toBe(Dispatch.workDirExitCode);
    expect(result.stderr.split('\n')).toHaveLength(2);
  });
});

describe('trainerCommand (docs/start.md, "The TrainJob", spec.trainer.command)', () => {
  it("is /bin/sh, -c, the prologue, dispatch-prologue, then the job's command", () => {
    expect(trainerCommand(['python', 'train.py'])).toEqual([
      '/bin/sh',
      '-c',
      PROLOGUE,
      'dispatch-prologue',
      'python',
      'train.py',
    ]);
    expect(trainerCommand(['x'])).toHaveLength(Limits.prologueItems + 1);
  });
});
