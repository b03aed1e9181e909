// The CLI verbs after Start (docs/contract.md §9) run as an operator runs them, a process with
// TEMPORAL_* in its environment, against a worker and the real cluster in plain mode: start, then
// open, status, watch and stop, each output piped into the next as JSON, with their exit codes.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { operationWorkflowId } from '../../../src/contract/names.js';
import type { TrainJobRef } from '../../../src/model/operations.js';
import type { CliRun } from '../../support/cli-process.js';
import { startRequest } from '../../support/requests.js';
import { cliFolder, cliOnStack } from '../support/cli.js';
import { dispatchSuite } from '../support/suite.js';

const suite = dispatchSuite('ops-cli');
let configFile: string;
let dir: string;

beforeAll(() => ({ dir, configFile } = cliFolder(suite, 'dk-ops-cli-')));

/** `dispatch-kubeflow <args> --config <file>`, with `stdin` as its standard input. */
const cli = (args: string[], stdin = ''): Promise<CliRun> => cliOnStack([...args, '--config', configFile], stdin);

/** The JSON a successful run printed (the test fails, showing stderr, on any other exit). */
function json<T = Record<string, unknown>>(run: CliRun): T {
  expect(run.code, `${run.stderr}${run.stdout}`).toBe(0);
  return JSON.parse(run.stdout) as T;
}

async function started(): Promise<{ output: string; ref: TrainJobRef }> {
  const request = startRequest();
  const file = join(dir, `${request.job}.json`);
  writeFileSync(file, JSON.stringify(request));
  const run = await cli(['start', '--request', file, '--wait', '--output', 'json']);
  const result = json<{ namespace: string; name: string; uid: string; mode: string }>(run);
  expect(result.mode).toBe('plain');
  return { output: run.stdout, ref: { namespace: result.namespace, name: result.name, uid: result.uid } };
}

// A dozen processes each, each about a second (several under load: tsx compiles src/ in each).
describe('the CLI verbs after Start, plain mode', { timeout: 300_000 }, () => {
  it('start | open | status | watch | stop: Gated, Running, Succeeded, Absent; release of a job not held answers Gated', async () => {
    const { output, ref } = await started();
    const refFile = join(dir, `${ref.name}.json`);
    writeFileSync(refFile, output);

    // status reads the cluster, no workflow: a TrainJob started and never opened is Gated.
    expect(json(await cli(['status', '--ref', refFile, '--output', 'json']))).toMatchObject({ ref, phase: 'Gated', held: false });

    // Release of a TrainJob that is not held answers its state (docs/contract.md §9a): still Gated.
    const release = await cli(['release', '--ref', '-', '--wait', '--output', 'json'], output);
    expect(release.code, release.stderr).toBe(0);
    expect(json(release)).toMatchObject({ ref, phase: 'Gated', held: false });

    // open --wait: Running. The real controllers and KWOK run the job in about a second, so
    // what follows may already read it Succeeded (and a second Open would be refused as such).
    const opened = await cli(['open', '--ref', '-', '--wait', '--output', 'json'], output);
    expect(json(opened)).toMatchObject({ ref, phase: 'Running', held: false });

    // status reads what Open left; its ref comes from Open's TrainJobState, piped in.
    const status = json<{ ref: TrainJobRef; phase: string }>(await cli(['status', '--ref', '-', '--output', 'json'], opened.stdout));
    expect(status.ref).toEqual(ref);
    expect(['Running', 'Succeeded']).toContain(status.phase);

    // watch without --wait: the workflow's ids, as start prints them; then --wait (attached to the
    // run, USE_EXISTING, or a new run if it has ended) answers the Outcome. By --name and --uid.
    expect(json(await cli(['watch', '--name', ref.name, '--uid', ref.uid, '--output', 'json']))).toEqual({
      workflowId: operationWorkflowId('watch', ref),
      runId: expect.any(String),
    });
    const outcome = await cli(['watch', '--name', ref.name, '--uid', ref.uid, '--wait', '--output', 'json']);
    expect(json(outcome)).toMatchObject({ ref, phase: 'Succeeded', finishedAt: expect.any(String) });

    // stop of the outcome's ref: the TrainJob is deleted, Absent; status agrees.
    const stopped = await cli(['stop', '--ref', '-', '--wait', '--output', 'json'], outcome.stdout);
    expect(json(stopped)).toMatchObject({ ref, phase: 'Absent', held: false });
    expect(json(await cli(['status', '--ref', refFile, '--output', 'json']))).toMatchObject({ ref, phase: 'Absent' });
  });

  it('hold | release in YAML: Held and held, then Gated again (never opened: Release does not open it); a ref of another UID reads Absent', async () => {
    const { output, ref } = await started();
    const held = await cli(['hold', '--ref', '-', '--wait'], output);
    expect(held.code, held.stderr).toBe(0);
    expect(held.stdout).toMatch(/^phase: Held\nheld: true\n/m);
    expect(json(await cli(['status', '--name', ref.name, '--uid', ref.uid, '--output', 'json']))).toMatchObject({ phase: 'Held', held: true });

    // A job held before it was ever opened returns to Gated at its Release (docs/contract.md §9a).
    const released = json<{ ref: TrainJobRef; phase: string; held: boolean }>(await cli(['release', '--ref', '-', '--wait', '--output', 'json'], held.stdout));
    expect(released).toMatchObject({ ref, phase: 'Gated', held: false });

    const other = await cli(['status', '--name', ref.name, '--uid', 'not-this-uid', '--output', 'json']);
    expect(json(other)).toMatchObject({ ref: { ...ref, uid: 'not-this-uid' }, phase: 'Absent' });

    expect(json(await cli(['stop', '--name', ref.name, '--uid', ref.uid, '--wait', '--output', 'json']))).toMatchObject({ phase: 'Absent' });
  });
});
