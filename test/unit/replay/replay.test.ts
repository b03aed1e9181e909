// Replay safety (docs/versioning.md): every recorded history of test/histories/ must replay
// against the workflow code as it is now, or a worker running this code would fail the Starts of
// that shape that are in flight when it is deployed. Replay runs in-process: no server is needed.
import {
  bundleWorkflowCode,
  DefaultLogger,
  Runtime,
  Worker,
  type WorkflowBundleWithSourceMap,
} from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { beforeAll, describe, expect, it } from 'vitest';
import { allHistories, historyFiles, loadHistory, manifestOf, setNames } from './corpus.js';

// The replay workers' start and stop are noise here; a failed replay is reported by the test.
try {
  Runtime.install({ logger: new DefaultLogger('WARN') });
} catch {
  // A runtime installed earlier in this process keeps its own logger.
}

const quiet = { trace() {}, debug() {}, info() {}, warn() {}, error: console.error, log() {} } as never;
const bundle = (path: string) =>
  bundleWorkflowCode({ workflowsPath: new URL(path, import.meta.url).pathname, logger: quiet });

/** Webpack takes seconds per bundle on a busy machine. */
const BUNDLE_TIMEOUT = 120_000;

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

describe('replay', () => {
  let workflows: WorkflowBundleWithSourceMap;
  beforeAll(async () => {
    workflows = await bundle('../../../src/workflows/index.ts');
  }, BUNDLE_TIMEOUT);

  it(
    'every recorded history replays against src/workflows without nondeterminism',
    async () => {
      const histories = allHistories();
      const failures: string[] = [];
      let replayed = 0;
      const results = Worker.runReplayHistories(
        { workflowBundle: workflows, replayName: 'corpus' },
        histories.map(({ name, history }) => ({ workflowId: name, history })),
      );
      for await (const result of results) {
        replayed++;
        if (result.error)
          failures.push(`${result.workflowId}: ${result.error.name}: ${result.error.message}`);
      }
      expect(failures).toEqual([]);
      expect(replayed).toBe(histories.length);
    },
    BUNDLE_TIMEOUT,
  );

  it(
    'detects nondeterminism: a recorded Start replayed against a copy that creates the runtime copy before reading the runtime fails with DeterminismViolationError',
    async () => {
      const reordered = await bundle('./reordered-workflows.ts');
      const [set] = setNames();
      const { history } = loadHistory(set!, 'start-plain-success.json');
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
