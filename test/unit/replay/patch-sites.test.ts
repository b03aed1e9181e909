// Replay coverage per patch site (docs/versioning.md): every `patched()` call of src/workflows is
// reached, by each workflow type that reaches it, in a recorded history with the patch's marker and
// in one without, so that the replay test runs both of its branches. Which call a history reaches,
// and with which answer, is what its replay reports (patch-sites.ts: the workflow code bundled with
// each call instrumented, reporting through a sink), not a list kept by hand. The rule is also run
// on made-up reports it must refuse.
import { join } from 'node:path';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { beforeAll, describe, expect, it } from 'vitest';
import { assignedHistories, historiesOf, madeBy, RECORDED_BUILDS, TODAY } from './builds.js';
import { REPO_ROOT } from './history-sums.js';
import { retiredBranchProblems, scanPatchCalls, siteCoverageProblems, sourcesUnder, type PatchCall, type ReplayedHistory } from './patch-scan.js';
import { instrumentedBundle, recordedSitesBundle, replaySites, SRC_WORKFLOWS, type SiteReplay } from './patch-sites.js';

const SRC_CONTRACT = join(REPO_ROOT, 'src', 'contract');

// The replay worker's start and stop are noise here; a failed replay is reported by the test.
try {
  Runtime.install({ logger: new DefaultLogger('WARN') });
} catch {
  // A runtime installed earlier in this process keeps its own logger.
}

/** Webpack takes seconds per bundle on a busy machine; the replay of the corpus a few more. */
const TIMEOUT = 180_000;

describe('the rule: a history reaches each patched() call with the marker and one without, per workflow type', () => {
  const call: PatchCall = { id: 'new-step', kind: 'patched', where: 'src/a.ts:4' };
  const history = (name: string, workflowType: string, patches: string[], ...answers: boolean[]): ReplayedHistory => ({
    name,
    workflowType,
    patches,
    reached: answers.map((answer) => ({ site: call.where, id: call.id, answer })),
  });
  const old = history('01/start.json', 'StartTrainJob', [], false);
  const marked = history('02/start.json', 'StartTrainJob', ['new-step'], true);

  it('passes with both branches reached', () => {
    expect(siteCoverageProblems([call], [old, marked])).toEqual([]);
  });

  it('fails with one branch reached, or neither', () => {
    expect(siteCoverageProblems([call], [marked])).toEqual([
      'src/a.ts:4 patched(new-step), StartTrainJob: no StartTrainJob history reaches it without the marker (only with: 02/start.json), so replay never takes its old branch',
    ]);
    expect(siteCoverageProblems([call], [old])).toEqual([
      'src/a.ts:4 patched(new-step), StartTrainJob: no StartTrainJob history reaches it with the marker (only without: 01/start.json), so replay never takes its new branch',
    ]);
    expect(siteCoverageProblems([call], [])).toEqual([
      'src/a.ts:4 patched(new-step): no recorded history reaches it, so replay takes neither of its branches',
    ]);
  });

  it('does not count a history without the marker that never gets to the call', () => {
    // A probe whose Start succeeded, a Start refused before its gates were proven: no marker, and no report.
    const neverThere = history('01/other.json', 'StartTrainJob', []);
    expect(siteCoverageProblems([call], [neverThere, marked])).toHaveLength(1);
  });

  it('wants both branches of every workflow type that reaches the call: another type does not stand in', () => {
    const stop = history('01/stop.json', 'StopTrainJob', [], false);
    expect(siteCoverageProblems([call], [old, marked, stop])).toEqual([
      expect.stringMatching(/^src\/a\.ts:4 patched\(new-step\), StopTrainJob: no StopTrainJob history reaches it with the marker/),
    ]);
  });

  it('refuses reports it cannot trust', () => {
    const at = (site: string, id: string, answer: boolean) => ({ ...old, name: `x/${site}-${id}`, reached: [{ site, id, answer }] });
    expect(siteCoverageProblems([call], [old, marked, at('src/b.ts:1', 'new-step', false)])).toEqual([
      'x/src/b.ts:1-new-step: its replay reported patched(new-step) at src/b.ts:1, which the scanner does not know',
    ]);
    expect(siteCoverageProblems([call], [old, marked, at('src/a.ts:4', 'other', false)])).toEqual([
      'x/src/a.ts:4-other: its replay reported patched(other) at src/a.ts:4, where the scanner reads patched(new-step)',
    ]);
    expect(siteCoverageProblems([call], [marked, { ...old, reached: [{ ...old.reached[0]!, answer: true }] }])).toContain(
      '01/start.json: patched(new-step) at src/a.ts:4 answered true, but the history has no marker of new-step',
    );
    // A marker and no report: the instrumentation missed the call (a sink not called during replay).
    expect(siteCoverageProblems([call], [old, marked, { ...marked, name: '03/start.json', reached: [] }])).toEqual([
      '03/start.json: has the marker of new-step, but its replay reported no patched(new-step) answering true (the instrumentation missed it)',
    ]);
  });

  it('wants a history with the marker of a deprecatePatch() id, and one id of one kind', () => {
    const deprecated: PatchCall = { id: 'gone-step', kind: 'deprecatePatch', where: 'src/c.ts:2' };
    const unmarked = history('01/x.json', 'StartTrainJob', []);
    expect(siteCoverageProblems([deprecated], [unmarked])).toEqual([
      'gone-step (src/c.ts:2): no recorded history has its marker; record a set under the patch',
    ]);
    expect(siteCoverageProblems([deprecated], [{ ...unmarked, patches: ['gone-step'] }])).toEqual([]);
    expect(siteCoverageProblems([call, { ...deprecated, id: 'new-step' }], [old, marked])).toEqual([
      'new-step: both patched() and deprecatePatch() (src/a.ts:4, src/c.ts:2)',
    ]);
  });
});

// The histories today's code replays (test/histories/builds.json); those of a retired patch's old
// branch replay against their recorded build (replay.test.ts), whose patch sites are its own.
describe('the corpus (test/histories) assigned to today, replayed with every patched() call of src/workflows reporting', () => {
  let replay: SiteReplay;
  beforeAll(async () => {
    replay = await replaySites(await instrumentedBundle(), historiesOf(TODAY));
  }, TIMEOUT);

  it('replays every history, and its reports answer both ways', () => {
    expect(replay.failures).toEqual([]);
    const answers = new Set(replay.histories.flatMap((h) => h.reached.map((r) => r.answer)));
    expect([...answers].sort()).toEqual([false, true]);
  });

  it('reaches every patched() call with the marker and without it, per workflow type that reaches it', () => {
    // The ids are constants of src/contract/names.ts, which the calls of src/workflows import.
    const { calls, problems } = scanPatchCalls([...sourcesUnder(SRC_WORKFLOWS, REPO_ROOT), ...sourcesUnder(SRC_CONTRACT, REPO_ROOT)]);
    expect(problems).toEqual([]);
    expect(calls.some((c) => c.kind === 'patched')).toBe(true);
    expect(siteCoverageProblems(calls, replay.histories)).toEqual([]);
  });
});

const todaysCalls = () => scanPatchCalls([...sourcesUnder(SRC_WORKFLOWS, REPO_ROOT), ...sourcesUnder(SRC_CONTRACT, REPO_ROOT)]).calls;

describe('the old branches of retired patches: the histories that take one are replayed by a recorded build, never by today', () => {
  const call = (id: string, answer: boolean, site = 'src/a.ts:4') => ({ site, id, answer });
  const replayed = (name: string, builds: string[], ...reached: ReturnType<typeof call>[]) => ({
    name,
    workflowType: 'StartTrainJob',
    patches: [],
    reached,
    builds,
  });
  const retired = new Set(['gone-step']);

  it('passes a history of the old branch on the recorded build only, and one of the new branch or of a patch in force on today', () => {
    expect(
      retiredBranchProblems('before-x', retired, [
        replayed('01/old.json', ['before-x'], call('gone-step', false)),
        replayed('02/new.json', [TODAY], call('gone-step', true)),
        replayed('02/kept.json', [TODAY], call('kept-step', false)),
      ], TODAY),
    ).toEqual([]);
  });

  it('refuses a history of the old branch assigned to today, alone or with the recorded build, and one assigned to no recorded build', () => {
    expect(retiredBranchProblems('before-x', retired, [replayed('01/old.json', [TODAY], call('gone-step', false))], TODAY)).toEqual([
      "01/old.json takes the old branch of retired gone-step (src/a.ts:4) on recorded build before-x: today's code has no such branch, so it must not be assigned to today (test/histories/builds.json)",
      '01/old.json takes the old branch of retired gone-step (src/a.ts:4) on recorded build before-x: assign it to before-x',
    ]);
    expect(retiredBranchProblems('before-x', retired, [replayed('01/old.json', [TODAY, 'before-x'], call('gone-step', false))], TODAY)).toHaveLength(1);
  });
});

// Each recorded build's src/workflows (git archive of its commit) instrumented as today's, and the
// histories made by it or by code before it replayed against that: what each reaches of the patches
// today's code has retired (deprecatePatch), with which answer.
describe.each(Object.entries(RECORDED_BUILDS))('recorded build %s (%s), replayed with its patched() calls reporting', (build, commit) => {
  let replay: SiteReplay;
  beforeAll(async () => {
    const made = assignedHistories().filter((h) => madeBy(h.set, commit));
    replay = await replaySites(await recordedSitesBundle(commit), made);
  }, TIMEOUT);

  it('replays every history made by it or before it', () => {
    expect(replay.failures).toEqual([]);
    expect(replay.histories.length).toBeGreaterThan(0);
  });

  it("assigns every history that takes the old branch of a patch today's code retired to a recorded build, and none of them to today", () => {
    const retired = new Set(todaysCalls().filter((c) => c.kind === 'deprecatePatch').map((c) => c.id));
    const builds = new Map(assignedHistories().map((h) => [h.name, h.builds]));
    const histories = replay.histories.map((h) => ({ ...h, builds: builds.get(h.name) ?? [] }));
    expect(retiredBranchProblems(build, retired, histories, TODAY)).toEqual([]);
    // Each retired patch's old branch is there to be replayed (else the build would replay none of it).
    for (const id of retired) expect(histories.some((h) => h.reached.some((r) => r.id === id && !r.answer)), `${id}: its old branch`).toBe(true);
  });
});
