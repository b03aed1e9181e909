// The CLI verbs after Start (open, hold, release, stop, watch, status; docs/contract.md §9), in
// process and without Temporal or a cluster: how the TrainJob is named (trainjob-ref.ts), what
// `--wait` prints (remote-commands.ts answerOf), and the exit codes cli.ts gives each outcome. The
// verbs against the real stack: test/integration/client/operations-cli.test.ts.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { WorkflowFailedError, type WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { CommanderError } from 'commander';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { stringify } from 'yaml';
import { buildCli, main } from '../../../src/cli/cli.js';
import { formatRefusal } from '../../../src/cli/render-command.js';
import { answerOf } from '../../../src/cli/remote-commands.js';
import { refFromDocument, refFromOptions } from '../../../src/cli/trainjob-ref.js';
import { DispatchError } from '../../../src/model/errors.js';
import { toApplicationFailure } from '../../../src/model/error-failures.js';
import { OPERATIONS } from '../../../src/contract/names.js';

const REF = { namespace: 'ml-jobs', name: 'dj-01jq-s12', uid: '9f0c7d2e-1b7a-4c56-8d1e-0a2b3c4d5e6f' };

/** The ErrInvalid's reasons a call throws (the test fails when it answers instead). */
function invalid(fn: () => unknown): readonly string[] {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(DispatchError);
    expect((error as DispatchError).type).toBe('ErrInvalid');
    return (error as DispatchError).reasons;
  }
  throw new Error('expected ErrInvalid');
}

describe('the TrainJob a verb acts on: refFromDocument', () => {
  it('a TrainJobRef as it is', () => {
    expect(refFromDocument(REF)).toEqual(REF);
  });

  it("a StartResult (what start --wait prints): namespace, name and uid from the top, its string ref ignored", () => {
    const startResult = { ref: `${REF.namespace}/${REF.name}`, uid: REF.uid, namespace: REF.namespace, name: REF.name, runtimeCopy: REF.name, mode: 'plain' };
    expect(refFromDocument(startResult)).toEqual(REF);
  });

  it.each([
    ['a TrainJobState (what open, hold, release, stop and status print)', { ref: REF, phase: 'Running', held: false, reasons: [] }],
    ["an Outcome (what watch prints)", { ref: REF, phase: 'Succeeded', reason: 'AllJobsCompleted', message: '', finishedAt: '2026-12-01T00:00:00Z' }],
    ["find's Present answer", { state: 'Present', ref: REF, attemptToken: '1-0123456789ab' }],
    ["a failure's ref (--output json)", { error: { type: 'ErrOutcomeUnknown', message: 'm', reasons: [], ref: REF } }],
  ])('%s: its ref', (_what, document) => {
    expect(refFromDocument(document)).toEqual(REF);
  });

  it('ErrInvalid naming every problem of a plain ref, a misspelt field included', () => {
    expect(invalid(() => refFromDocument({ namespace: 'ML', name: REF.name, uid: 'a/b', color: 'red' }))).toEqual([
      'namespace: not a valid namespace name (DNS-1123 label)',
      'uid: must not contain "/"',
      'color: unknown field',
    ]);
  });

  it('ErrInvalid for a StartResult without its uid, and for what is no object at all', () => {
    expect(invalid(() => refFromDocument({ ref: 'a/b', namespace: 'a', name: 'b' }))).toEqual([expect.stringMatching(/^uid: /)]);
    expect(invalid(() => refFromDocument('dj-01jq-s12')).length).toBeGreaterThan(0);
    expect(invalid(() => refFromDocument({ error: { type: 'ErrInvalid', reasons: [] } })).length).toBeGreaterThan(0);
  });
});

describe('the TrainJob a verb acts on: refFromOptions', () => {
  it("--name and --uid, in the configuration's namespace unless --namespace names another", async () => {
    expect(await refFromOptions({ name: REF.name, uid: REF.uid }, REF.namespace)).toEqual(REF);
    expect(await refFromOptions({ name: REF.name, uid: REF.uid, namespace: 'other' }, REF.namespace)).toEqual({ ...REF, namespace: 'other' });
  });

  it('neither --ref nor both --name and --uid: a usage error (a plain Error, exit 1), not a refusal', async () => {
    for (const opts of [{}, { name: REF.name }, { uid: REF.uid }]) {
      const error = await refFromOptions(opts, REF.namespace).catch((e: unknown) => e);
      expect(error).not.toBeInstanceOf(DispatchError);
      expect((error as Error).message).toBe('name the TrainJob with --name and --uid (and --namespace), or with --ref <file>');
    }
  });
});

describe('what a verb prints: answerOf', () => {
  const handle = (result: () => Promise<unknown>) =>
    ({ workflowId: `open/${REF.namespace}/${REF.name}/${REF.uid}`, firstExecutionRunId: 'run-1', result }) as unknown as WorkflowHandleWithFirstExecutionRunId;

  it("without --wait: the workflow id and run id, as start prints them; the result is not waited for", async () => {
    const result = vi.fn(() => Promise.resolve({}));
    expect(JSON.parse(await answerOf(handle(result), { wait: false, output: 'json' }))).toEqual({
      workflowId: `open/${REF.namespace}/${REF.name}/${REF.uid}`,
      runId: 'run-1',
    });
    expect(result).not.toHaveBeenCalled();
  });

  it('with --wait: the result, in YAML or JSON', async () => {
    const state = { ref: REF, phase: 'Running', held: false, reasons: ['r'] };
    expect(JSON.parse(await answerOf(handle(() => Promise.resolve(state)), { wait: true, output: 'json' }))).toEqual(state);
    expect(await answerOf(handle(() => Promise.resolve(state)), { wait: true, output: 'yaml' })).toBe(stringify(state));
  });

  it('with --wait, a failed workflow: its typed error (cli.ts makes it exit 2)', async () => {
    const refusal = new DispatchError('ErrRejected', ['Release of TrainJob ml-jobs/dj-01jq-s12: it is not held'], 0, REF);
    const failed = new WorkflowFailedError('failed', toApplicationFailure(refusal), 'NON_RETRYABLE_FAILURE');
    const error = await answerOf(handle(() => Promise.reject(failed)), { wait: true, output: 'json' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DispatchError);
    expect(error).toMatchObject({ type: 'ErrRejected', reasons: refusal.reasons, ref: REF });
  });

  it('a failure with no type of ours passes through as it is (exit 1)', async () => {
    const other = new WorkflowFailedError('terminated', ApplicationFailure.create({ message: 'x', type: 'Other' }), 'NON_RETRYABLE_FAILURE');
    await expect(answerOf(handle(() => Promise.reject(other)), { wait: true, output: 'json' })).rejects.toBe(other);
  });
});

describe('a refusal of an operation as printed: no step', () => {
  it('yaml: "<type>: refused, TrainJob <ns>/<name> (uid <uid>)" and the reasons; json carries the ref', () => {
    const error = new DispatchError('ErrRejected', ['Release of TrainJob ml-jobs/dj-01jq-s12: it is not held'], 0, REF);
    expect(formatRefusal(error, 'yaml')).toEqual({
      stdout: '',
      stderr: `ErrRejected: refused, TrainJob ml-jobs/dj-01jq-s12 (uid ${REF.uid})\n  - Release of TrainJob ml-jobs/dj-01jq-s12: it is not held\n`,
    });
    expect(JSON.parse(formatRefusal(error, 'json').stdout)).toEqual({
      error: { type: 'ErrRejected', message: error.message, reasons: [...error.reasons], ref: REF },
    });
  });
});

describe('exit codes (cli.ts), before any connection', () => {
  let dir: string;
  let out = '';
  let err = '';
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'operation-cli-'));
    await writeFile(path.join(dir, 'config.yaml'), `namespace: ${REF.namespace}\n`);
    await writeFile(path.join(dir, 'bad-ref.json'), JSON.stringify({ ...REF, uid: '' }));
    await writeFile(path.join(dir, 'other-ns.yaml'), stringify({ ...REF, namespace: 'elsewhere' }));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));
  afterEach(() => {
    process.exitCode = undefined;
    vi.restoreAllMocks();
  });

  async function run(...args: string[]): Promise<number> {
    out = '';
    err = '';
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((out += String(chunk)), true));
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((err += String(chunk)), true));
    await main(['node', 'dispatch-kubeflow', ...args.map((a) => (a.endsWith('.json') || a.endsWith('.yaml') ? path.join(dir, a) : a))]);
    return Number(process.exitCode ?? 0);
  }

  it.each(OPERATIONS)('%s of an invalid ref: exit 2, ErrInvalid, and no workflow started', async (operation) => {
    expect(await run(operation, '--config', 'config.yaml', '--ref', 'bad-ref.json', '--wait', '--output', 'json')).toBe(2);
    expect(JSON.parse(out)).toEqual({ error: { type: 'ErrInvalid', message: expect.stringContaining('uid: must not be empty'), reasons: ['uid: must not be empty'] } });
    expect(err).toBe('');
  });

  it("status of a ref outside the configured namespace: exit 2, ErrRejected, the cluster not read", async () => {
    expect(await run('status', '--config', 'config.yaml', '--ref', 'other-ns.yaml')).toBe(2);
    expect(out).toBe('');
    expect(err).toBe(
      `ErrRejected: refused, TrainJob elsewhere/${REF.name} (uid ${REF.uid})\n` +
        `  - status of TrainJob elsewhere/${REF.name}: dispatch works in namespace ${REF.namespace} only\n`,
    );
  });

  it('no ref at all, or a ref file that cannot be read: exit 1, one line on stderr', async () => {
    expect(await run('stop', '--config', 'config.yaml', '--name', REF.name, '--output', 'json')).toBe(1);
    expect([out, err]).toEqual(['', 'dispatch-kubeflow: name the TrainJob with --name and --uid (and --namespace), or with --ref <file>\n']);
    expect(await run('watch', '--config', 'config.yaml', '--ref', 'missing.json')).toBe(1);
    expect([out, err]).toEqual(['', `dispatch-kubeflow: cannot read ${path.join(dir, 'missing.json')}: ENOENT\n`]);
  });

  it('--ref with --name, --uid or --namespace: a usage error of commander (exit 1)', async () => {
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const program = buildCli().exitOverride();
    for (const command of program.commands) command.exitOverride();
    const error = await program
      .parseAsync(['node', 'dispatch-kubeflow', 'hold', '--config', 'c.yaml', '--ref', 'r.json', '--uid', 'u'])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CommanderError);
    expect((error as CommanderError).exitCode).toBe(1);
    expect((error as CommanderError).message).toBe("error: option '--ref <file>' cannot be used with option '--uid <uid>'");
  });
});
