// Replay safety (docs/versioning.md): every recorded history of test/histories/ must replay
// against each build that may be asked to replay its run (test/histories/builds.json): today's
// src/workflows, or a worker running this code would fail the runs of that shape in flight when it
// is deployed, and/or a recorded build, the commit that still has the old branch a history takes
// of a patch retired since. Replay runs in-process: no server is needed.
import {
  bundleWorkflowCode,
  DefaultLogger,
  Runtime,
  Worker,
  type WorkflowBundleWithSourceMap,
} from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  assignedHistories,
  assignmentProblems,
  historiesOf,
  quietLogger,
  readAssignment,
  recordedBuildBundle,
  RECORDED_BUILDS,
  TODAY,
  type BuildAssignment,
  type CorpusEntry,
} from './builds.js';
import { historyFiles, loadHistory, manifestOf, setNames, type RecordedHistory } from './corpus.js';
import { workflowTypeOf } from './patch-scan.js';

// The replay workers' start and stop are noise here; a failed replay is reported by the test.
try {
  Runtime.install({ logger: new DefaultLogger('WARN') });
} catch {
  // A runtime installed earlier in this process keeps its own logger.
}

const bundle = (path: string) =>
  bundleWorkflowCode({ workflowsPath: new URL(path, import.meta.url).pathname, logger: quietLogger });

/** Webpack takes seconds per bundle on a busy machine. */
const BUNDLE_TIMEOUT = 120_000;

/** "<name> does not replay against <build>: <error>" for each history that does not. */
async function replayFailures(workflowBundle: { code: string }, build: string, histories: RecordedHistory[]): Promise<string[]> {
  const failures: string[] = [];
  let replayed = 0;
  const results = Worker.runReplayHistories(
    { workflowBundle, replayName: build },
    histories.map(({ name, history }) => ({ workflowId: name, history })),
  );
  for await (const result of results) {
    replayed++;
    if (result.error) failures.push(`${result.workflowId} does not replay against ${build}: ${result.error.name}: ${result.error.message}`);
  }
  if (replayed !== histories.length) failures.push(`${build}: ${replayed} of ${histories.length} histories replayed`);
  return failures;
}

const corpusEntries = (): CorpusEntry[] =>
  assignedHistories().map(({ name, set, history }) => ({ name, set, workflowType: workflowTypeOf(history) }));

describe('the recorded histories (test/histories)', () => {
  it('are there, each set with a manifest listing exactly its files and their event counts', () => {
    const sets = setNames();
    expect(sets.length).toBeGreaterThan(0);
    for (const set of sets) {
      const manifest = manifestOf(set);
      expect(manifest.set, `${set}/manifest.json`).toBe(set);
      expect(manifest.histories.map((h) => h.file).sort(), `${set}/manifest.json`).toEqual(historyFiles(set));
      for (const entry of manifest.histories)
        expect(loadHistory(set, entry.file).history.events?.length, `${set}/${entry.file}`).toBe(
          entry.events,
        );
    }
  });
});

describe('which builds replay each history (test/histories/builds.json)', () => {
  it('assigns every set to a build, names only today and recorded builds, uses every recorded build, and gives every Watch history to today', () => {
    expect(assignmentProblems(readAssignment(), corpusEntries())).toEqual([]);
  });

  it('refuses a set assigned to no build, an unknown build, an unused recorded build, and a Watch history not replayed by today', () => {
    const corpus: CorpusEntry[] = [
      { name: '01-a/start.json', set: '01-a', workflowType: 'StartTrainJob' },
      { name: '01-a/watch.json', set: '01-a', workflowType: 'WatchTrainJob' },
      { name: '02-b/start.json', set: '02-b', workflowType: 'StartTrainJob' },
    ];
    const recorded = { 'before-x': 'c0ffee'.padEnd(40, '0') };
    const good: BuildAssignment = { sets: { '01-a': ['before-x'], '02-b': [TODAY] }, files: { '01-a/watch.json': [TODAY] } };
    expect(assignmentProblems(good, corpus, recorded)).toEqual([]);
    expect(assignmentProblems({ sets: { '01-a': ['before-x', TODAY] } }, corpus, recorded)).toEqual([
      '02-b is assigned to no build: list the builds that must replay it in test/histories/builds.json',
    ]);
    expect(assignmentProblems({ ...good, sets: { ...good.sets, '02-b': [] } }, corpus, recorded)).toEqual([
      '02-b is assigned to no build: list the builds that must replay it in test/histories/builds.json',
    ]);
    expect(assignmentProblems(good, corpus, {})).toEqual([
      'sets["01-a"] names build "before-x", which is neither "today" nor a recorded build (RECORDED_BUILDS, test/unit/replay/builds.ts)',
    ]);
    expect(assignmentProblems({ sets: good.sets }, corpus, recorded)).toEqual([
      "01-a/watch.json: a WatchTrainJob run moves to the current build (AUTO_UPGRADE), so today's code must replay it, but it is assigned to before-x",
    ]);
    expect(assignmentProblems({ sets: { '01-a': [TODAY], '02-b': [TODAY] } }, corpus, recorded)).toEqual([
      'recorded build before-x (c0ffee0000000000000000000000000000000000) replays no history: remove it',
    ]);
    expect(assignmentProblems(good, corpus, { 'before-x': 'c0ffee' })).toEqual(['recorded build before-x: "c0ffee" is not a full commit (40 hex digits)']);
    expect(assignmentProblems({ sets: { ...good.sets, '03-c': [TODAY] }, files: { ...good.files, '01-a/gone.json': [TODAY], '02-b/start.json': [] } }, corpus, recorded)).toEqual([
      'sets["03-c"]: there is no set 03-c',
      'files["01-a/gone.json"]: there is no history 01-a/gone.json',
      '02-b/start.json is assigned to no build (its entry under files is empty)',
    ]);
  });
});

describe('replay', () => {
  let workflows: WorkflowBundleWithSourceMap;
  beforeAll(async () => {
    workflows = await bundle('../../../src/workflows/index.ts');
  }, BUNDLE_TIMEOUT);

  it(
    'every history assigned to today replays against src/workflows without nondeterminism',
    async () => {
      const histories = historiesOf(TODAY);
      expect(histories.length).toBeGreaterThan(0);
      const failures = await replayFailures(workflows, "today's src/workflows", histories);
      expect(
        failures,
        'a history that takes the old branch of a retired patch replays against the recorded build that still has it: assign it there in test/histories/builds.json',
      ).toEqual([]);
    },
    BUNDLE_TIMEOUT,
  );

  // Built once per machine (builds.ts caches the bundle by commit); the first run takes webpack's time.
  it.each(Object.entries(RECORDED_BUILDS))(
    'every history assigned to recorded build %s replays against the src/workflows of its commit %s',
    async (build, commit) => {
      const histories = historiesOf(build);
      expect(histories.length).toBeGreaterThan(0);
      const failures = await replayFailures(await recordedBuildBundle(commit), `recorded build ${build} (${commit.slice(0, 12)})`, histories);
      expect(failures).toEqual([]);
    },
    BUNDLE_TIMEOUT * 2,
  );

  it(
    'detects nondeterminism: a recorded Start that replays against src/workflows, replayed against a copy that creates the runtime copy before reading the runtime, fails with DeterminismViolationError',
    async () => {
      const reordered = await bundle('./reordered-workflows.ts');
      const [start] = historiesOf(TODAY).filter((h) => h.file === 'start-plain-success.json');
      expect(start, 'a plain Start assigned to today').toBeDefined();
      const { history, name } = start!;
      await Worker.runReplayHistory({ workflowBundle: workflows, replayName: 'real' }, history, name);
      const replay = Worker.runReplayHistory(
        { workflowBundle: reordered, replayName: 'reordered' },
        history,
        'reordered',
      );
      const error = await replay.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(DeterminismViolationError);
      expect((error as Error).message).toMatch(/TMPRL1100.*Nondeterminism/);
    },
    BUNDLE_TIMEOUT,
  );
});
