// Hostile names and values (docs/reliability.md): env values, command items and a WorkDir with shell
// metacharacters, newlines, very long strings and non-ASCII text go through a real Start, are read
// back from the API server unchanged in the TrainJob, and reach the process unchanged when the
// stored command is run with the stored environment, as the container would run it: the prologue
// under /bin/sh, then exec of the job's command (docs/start.md, JobSpec table, Command, Env, WorkDir).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compareBytes } from '../../../src/core/start/render.js';
import { PROLOGUE } from '../../../src/core/start/prologue.js';
import { Dispatch, EnvVars, Labels, Trainer } from '../../../src/model/constants.js';
import { DispatchError } from '../../../src/model/errors.js';
import type { EnvVar, TrainJob } from '../../../src/model/kube.js';
import { startRequest } from '../../support/requests.js';
import { reliabilityLab } from '../../reliability/support/lab.js';
import { expectJobObjects, outcomeOf } from '../../reliability/support/outcome.js';

const PRINTF = '/usr/bin/printf';
const ENV = '/usr/bin/env';
const PWD = '/bin/pwd';

/** A value each: the same list feeds the command and the env. Linux takes at most 128 KiB per argument or variable. */
const HOSTILE: Record<string, string> = {
  SUBST: '$(id) `id` ${HOME} $HOME',
  QUOTES: `'single' "double" \\back\\slash`,
  CONTROL: 'a;b|c&d>e<f (g) {h} !i #j ~k *l ?m [n] %s%n',
  DASHES: '-n',
  DOUBLE_DASH: '--',
  NEWLINES: 'line1\nline2\r\nline3\n',
  ONLY_NEWLINE: '\n',
  LEADING_SPACE: '  two leading spaces',
  TAB_ESC: 'tab\there \u001b[31mred\u001b[0m \u0007bell',
  EMPTY: '',
  ACCENTS: 'naïve café Ünïcödé',
  CJK: '日本語のテキスト',
  EMOJI: '😀🚀👩‍👩‍👧 flags 🇬🇧',
  RTL: 'עברית العربية \u202eoverride\u202c',
  INVISIBLE: 'zero\u200bwidth\u00a0nbsp\ufeffbom\u2028sep',
  COMBINING: 'e\u0301 vs \u00e9',
  LONG_ASCII: 'L'.repeat(100_000),
  LONG_CJK: '字'.repeat(30_000),
};

const scratch = mkdtempSync(join(tmpdir(), 'dispatch-hostile-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The stored env as the container gets it: a variable written without a value is the empty string. */
const asEnv = (vars: EnvVar[]) => Object.fromEntries(vars.map((v) => [v.name, v.value ?? '']));

/** Runs an argv with exactly this environment (plus PATH, which the image would give), as the kubelet would. */
function run(argv: string[], env: Record<string, string>) {
  const [file, ...args] = argv;
  const result = spawnSync(file!, args, {
    env: { PATH: '/usr/bin:/bin', ...env },
    cwd: scratch,
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.error) throw result.error;
  return {
    status: result.status,
    stdout: result.stdout.toString('utf8'),
    stderr: result.stderr.toString('utf8'),
  };
}

describe('hostile names and values reach the container unchanged', () => {
  const lab = reliabilityLab('hostile');

  async function startAndRead(spec: { command: string[]; env: Record<string, string>; workDir?: string }) {
    const config = lab.config({ timeouts: { call: '30s', workload: '5s' } });
    const worker = await lab.worker(config, `hostile-${Date.now()}`);
    try {
      const request = startRequest({ spec: { ...spec, gpusPerNode: 0 } });
      const outcome = await outcomeOf(await lab.client(config).submit(request));
      await expectJobObjects(lab.kube, lab.ns.name, request.job, outcome);
      if (!outcome.ok) return { request, outcome, trainJob: undefined };
      lab.ledger.expectStarted(outcome.result.name);
      const trainJob = (await lab.kube.custom.getNamespacedCustomObject({
        group: Trainer.group,
        version: Trainer.version,
        namespace: lab.ns.name,
        plural: Trainer.trainJobPlural,
        name: outcome.result.name,
      })) as TrainJob;
      return { request, outcome, trainJob };
    } finally {
      await worker.stop();
    }
  }

  it('command items and env values: stored verbatim, and printed back byte for byte by the process', async () => {
    const args = Object.values(HOSTILE);
    // startRequest's WorkDir (/workspace) is the container's; here the process runs in the scratch folder.
    const { outcome, trainJob } = await startAndRead({
      command: [PRINTF, '%s\\0', 'marker', ...args],
      env: HOSTILE,
      workDir: scratch,
    });
    expect(outcome.ok, JSON.stringify(outcome)).toBe(true);
    const trainer = trainJob!.spec.trainer!;

    // The rendered object, as the API server keeps it.
    expect(trainer.command).toEqual([
      '/bin/sh',
      '-c',
      PROLOGUE,
      Dispatch.prologueName,
      PRINTF,
      '%s\\0',
      'marker',
      ...args,
    ]);
    const jobEnv = trainer.env!.slice(0, Object.keys(HOSTILE).length);
    expect(trainer.env!.slice(jobEnv.length).map((v) => v.name)).toEqual([
      ...Object.values(EnvVars).slice(0, 7),
    ]);
    expect(jobEnv.map((v) => v.name)).toEqual(Object.keys(HOSTILE).sort(compareBytes));
    expect(asEnv(jobEnv)).toEqual(HOSTILE);

    // The stored command run with the stored env: the arguments arrive unchanged...
    const env = asEnv(trainer.env!);
    const printed = run(trainer.command!, env);
    expect(printed.status, printed.stderr).toBe(0);
    expect(printed.stdout.split('\u0000').slice(1, -1)).toEqual(args);

    // ...and so does every variable, under the same prologue.
    const dumped = run([...trainer.command!.slice(0, 4), ENV, '-0'], env);
    expect(dumped.status, dumped.stderr).toBe(0);
    const seen = Object.fromEntries(
      dumped.stdout
        .split('\u0000')
        .filter((line) => line !== '')
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
    );
    for (const [key, value] of Object.entries(HOSTILE)) expect(seen[key], key).toBe(value);
    lab.figure('hostile values', {
      commandItems: args.length,
      envValues: Object.keys(HOSTILE).length,
      longestBytes: Math.max(...args.map((a) => Buffer.byteLength(a))),
      trainJobBytes: Buffer.byteLength(JSON.stringify(trainJob)),
    });
  }, 180_000);

  it('a WorkDir with spaces, a newline, metacharacters and non-ASCII is entered by the prologue', async () => {
    const workDir = join(scratch, ' sp ace\n$(id) `id` ;|& 日本 😀');
    mkdirSync(workDir);
    const { outcome, trainJob } = await startAndRead({ command: [PWD, '-P'], env: {}, workDir });
    expect(outcome.ok, JSON.stringify(outcome)).toBe(true);
    const trainer = trainJob!.spec.trainer!;
    expect(asEnv(trainer.env!)[EnvVars.workDir]).toBe(workDir);
    const entered = run(trainer.command!, asEnv(trainer.env!));
    expect(entered.status, entered.stderr).toBe(0);
    expect(entered.stdout).toBe(`${realpathSync(workDir)}\n`);
  }, 180_000);

  it('a lone UTF-16 surrogate, which no UTF-8 can carry, is refused at step 4 (ErrInvalid), before anything is created', async () => {
    // The API server would store U+FFFD in its place, so it is refused before any call.
    const config = lab.config({ timeouts: { call: '30s', workload: '5s' } });
    const request = startRequest({ spec: { command: ['true'], env: { BROKEN: 'a\ud800b' }, workDir: scratch, gpusPerNode: 0 } });
    const error = await lab.client(config).submit(request).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(DispatchError);
    expect(error).toMatchObject({ type: 'ErrInvalid', step: 4 });
    expect((error as DispatchError).reasons).toContain('spec.env.BROKEN: holds a lone UTF-16 surrogate, which Kubernetes cannot store');
    const trainJobs = (await lab.kube.custom.listNamespacedCustomObject({
      group: Trainer.group,
      version: Trainer.version,
      namespace: lab.ns.name,
      plural: Trainer.trainJobPlural,
      labelSelector: `${Labels.jobId}=${request.job.toLowerCase()}`,
    })) as { items: unknown[] };
    expect(trainJobs.items).toEqual([]);
  }, 180_000);
});
