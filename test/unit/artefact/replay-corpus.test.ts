// The replay runner of `npm test`'s artefact check (scripts/artefact/replay-corpus.mjs) fails, and
// names the file, when a history does not replay. It runs here on a one-activity workflow and its
// recorded history (fixtures/), bundled as the production bundles are (with dispatch's workflow
// interceptor), so that the test does not depend on the corpus of test/histories matching the
// workflow code of the moment. The worker options come from src/ through tsx, where the artefact
// check takes them from dist/.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workflowInterceptorModules } from '../../../src/observability/interceptors.js';
import { REPO, runNode } from './run-node.js';

const RUNNER = path.join(REPO, 'scripts/artefact/replay-corpus.mjs');
const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

/** Webpack takes seconds per bundle on a busy machine. */
const TIMEOUT = 120_000;

let dir: string;
let bundle: string;

interface HistoryJson {
  events: { activityTaskScheduledEventAttributes?: { activityType: { name: string } } }[];
}

/** Writes <dir>/histories-<name>/<set>/<file> for each entry and answers the histories folder. */
async function corpus(name: string, files: Record<string, unknown>): Promise<string> {
  const root = path.join(dir, `histories-${name}`);
  for (const [file, json] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, file)), { recursive: true });
    await writeFile(path.join(root, file), JSON.stringify(json));
  }
  await mkdir(root, { recursive: true });
  return root;
}

const replay = (histories: string, ...extra: string[]) =>
  runNode([
    '--import',
    'tsx',
    RUNNER,
    '--root',
    REPO,
    '--code',
    path.join(REPO, 'src'),
    '--histories',
    histories,
    '--bundle',
    bundle,
    ...extra,
  ]);

let greeting: HistoryJson;
let altered: HistoryJson;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'replay-corpus-'));
  const { code } = await bundleWorkflowCode({
    workflowsPath: fixture('greeting-workflow.ts'),
    workflowInterceptorModules: workflowInterceptorModules(),
    logger: { trace() {}, debug() {}, info() {}, warn() {}, error: console.error, log() {} } as never,
  });
  bundle = path.join(dir, 'greeting-bundle.js');
  await writeFile(bundle, code);
  greeting = JSON.parse(await readFile(fixture('greeting.json'), 'utf8')) as HistoryJson;
  altered = structuredClone(greeting);
  const scheduled = altered.events.find((e) => e.activityTaskScheduledEventAttributes);
  scheduled!.activityTaskScheduledEventAttributes!.activityType.name = 'farewell';
}, TIMEOUT);

afterAll(() => rm(dir, { recursive: true, force: true }));

describe('scripts/artefact/replay-corpus.mjs', () => {
  it(
    'replays a history that matches the bundle: exit 0; its self-check alters it and sees DeterminismViolationError',
    async () => {
      const histories = await corpus('good', {
        '01-recorded/greeting.json': greeting,
        // Manifests are not histories.
        '01-recorded/manifest.json': { set: '01-recorded', histories: [] },
      });
      const run = await replay(histories, '--self-check');
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('greeting-bundle.js: 1 of 1 histories (1 sets: 01-recorded) replayed');
      expect(run.stdout).toMatch(
        /self-check: 01-recorded\/greeting\.json \(activity greet renamed greetAltered\): DeterminismViolationError: .*Activity type of scheduled event 'greetAltered' does not match activity type of activity command 'greet'/,
      );
    },
    TIMEOUT,
  );

  it(
    'fails with exit 1 naming each history that does not replay (nondeterminism, unreadable) and no other; the self-check alters one that replayed',
    async () => {
      const histories = await corpus('mixed', {
        '01-altered/greeting.json': altered,
        '02-recorded/greeting.json': greeting,
        '03-broken/no-events.json': { events: [] },
      });
      const run = await replay(histories, '--self-check');
      expect(run.code).toBe(1);
      expect(run.stdout).toContain('1 of 3 histories (3 sets: 01-altered, 02-recorded, 03-broken)');
      expect(run.stdout).toMatch(
        /self-check: 02-recorded\/greeting\.json \(activity greet renamed greetAltered\): DeterminismViolationError/,
      );
      const failures = run.stderr.split('\n').filter((line) => line.includes('FAIL'));
      expect(failures).toEqual([
        expect.stringMatching(
          /^ {2}FAIL 03-broken\/no-events\.json: unreadable: not a workflow history: no events$/,
        ),
        expect.stringMatching(
          /^ {2}FAIL 01-altered\/greeting\.json: DeterminismViolationError: .*Activity type of scheduled event 'farewell' does not match activity type of activity command 'greet'/,
        ),
        'replay-corpus: FAIL: 2 failure(s)',
      ]);
    },
    TIMEOUT,
  );

  it(
    'leaves out the histories builds.json gives to a recorded build only, and replays the rest',
    async () => {
      const histories = await corpus('builds', {
        '01-old/greeting.json': altered,
        '01-old/kept.json': greeting,
        '02-new/greeting.json': greeting,
        'builds.json': { sets: { '01-old': ['before-x'], '02-new': ['today'] }, files: { '01-old/kept.json': ['before-x', 'today'] } },
      });
      const run = await replay(histories);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('replay: 1 histories left to their recorded builds (builds.json): 01-old/greeting.json');
      expect(run.stdout).toContain('greeting-bundle.js: 2 of 2 histories (2 sets: 01-old, 02-new) replayed');
    },
    TIMEOUT,
  );

  it(
    'fails with exit 1 when there is no history at all',
    async () => {
      const run = await replay(await corpus('empty', {}));
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('replay-corpus: FAIL: no histories under');
    },
    TIMEOUT,
  );
});
