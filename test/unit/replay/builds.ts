// Which build replays which history of the corpus (docs/versioning.md, "Replay per build"). A
// history is replayed against every build that may be asked to replay its run: today's
// src/workflows ("today"), and/or a recorded build, a commit whose src/workflows still has the old
// branches of patches retired since. test/histories/builds.json says it per set (`sets`), and per
// history where one differs from its set (`files`); the recorded builds' commits are pinned here.
// A recorded build's workflows are taken from git (git archive of the commit, outside the work
// tree), bundled with this checkout's node_modules, and the bundle cached per machine.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { VERSIONING_BEHAVIORS } from '../../../src/contract/versioning.js';
import { REPO_ROOT, treeOf } from '../../support/git-tree.js';
import { allHistories, HISTORIES_DIR, manifestOf, type RecordedHistory } from './corpus.js';
import { workflowTypeOf } from './patch-scan.js';

/** src/workflows of this checkout. */
export const TODAY = 'today';

/**
 * The recorded builds: a name (as builds.json uses it) and its commit, in full. A recorded build
 * goes, with the histories only it replays, once no build that ran runs of its old branches may
 * run any more (docs/versioning.md, "Patch policy").
 */
export const RECORDED_BUILDS: Readonly<Record<string, string>> = {
  // The commit before the first retirement (step 2: deprecatePatch, the old branch deleted) of
  // start-one-upsert-per-task, start-folded-calls, gate-refusal-removes-unowned-copy,
  // probe-stops-what-it-may-have-made and hold-deactivates-workload-first: its src/workflows has
  // both branches of each (and of every patch in force), as every commit since the sets 01 to 13
  // were recorded. It replays the histories of those old branches; it goes with them once no build
  // without those patches may run (none was released: 0.1.0 was never deployed).
  'before-retirement': '033d8e0fb3f863e914edd365ecbbe109426b26c0',
};

export const ASSIGNMENT_FILE = join(HISTORIES_DIR, 'builds.json');

/** test/histories/builds.json: the builds of each set, and of each history whose builds differ from its set's. */
export interface BuildAssignment {
  '//'?: string;
  sets: Record<string, string[]>;
  /** "<set>/<file>": that history's builds instead of its set's. */
  files?: Record<string, string[]>;
}

export const readAssignment = (): BuildAssignment =>
  JSON.parse(readFileSync(ASSIGNMENT_FILE, 'utf8')) as BuildAssignment;

const ABOUT =
  'Which builds replay each set (and, under files, each history whose builds differ from its set\'s): "today" is src/workflows of the checkout, any other name a recorded build of test/unit/replay/builds.ts. Every history replays against each of its builds (test/unit/replay/replay.test.ts); docs/versioning.md, "Replay per build".';

/** builds.json as written: one line per set or history. */
export function formatAssignment({ sets, files = {} }: BuildAssignment): string {
  const block = (entries: Record<string, string[]>) =>
    Object.entries(entries)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, builds]) => `    ${JSON.stringify(key)}: ${JSON.stringify(builds).replaceAll(',', ', ')}`)
      .join(',\n');
  const section = (name: string, entries: Record<string, string[]>) =>
    Object.keys(entries).length === 0 ? `  "${name}": {}` : `  "${name}": {\n${block(entries)}\n  }`;
  return `{\n  "//": ${JSON.stringify(ABOUT)},\n${section('sets', sets)},\n${section('files', files)}\n}\n`;
}

/**
 * builds.json with a newly recorded set replayed by today's code, which made it
 * (scripts/record-histories.ts). A baseline starts the file again with its one set.
 */
export function assignNewSet(set: string, baseline: boolean): void {
  const assignment: BuildAssignment = baseline || !existsSync(ASSIGNMENT_FILE) ? { sets: {} } : readAssignment();
  writeFileSync(ASSIGNMENT_FILE, formatAssignment({ ...assignment, sets: { ...assignment.sets, [set]: [TODAY] } }));
}

/** What the assignment checks need of a history. */
export interface CorpusEntry {
  /** "<set>/<file>" */
  name: string;
  set: string;
  workflowType: string;
}

export const buildsOf = (assignment: BuildAssignment, { name, set }: CorpusEntry): string[] =>
  assignment.files?.[name] ?? assignment.sets[set] ?? [];

/**
 * What is wrong with an assignment of builds to the corpus: a set (or history) assigned to no
 * build, a build that is neither today nor a recorded one, an entry for no set or history, a
 * recorded build that replays nothing, and a history of a workflow type whose runs move between
 * builds (AUTO_UPGRADE: WatchTrainJob) that today's code does not replay.
 */
export function assignmentProblems(
  assignment: BuildAssignment,
  corpus: CorpusEntry[],
  recorded: Readonly<Record<string, string>> = RECORDED_BUILDS,
): string[] {
  const problems: string[] = [];
  const sets = new Set(corpus.map((h) => h.set));
  const names = new Set(corpus.map((h) => h.name));
  const entries: [string, string[]][] = [
    ...Object.entries(assignment.sets).map(([set, builds]): [string, string[]] => [`sets["${set}"]`, builds]),
    ...Object.entries(assignment.files ?? {}).map(([name, builds]): [string, string[]] => [`files["${name}"]`, builds]),
  ];
  for (const [where, builds] of entries)
    for (const build of builds)
      if (build !== TODAY && !(build in recorded))
        problems.push(`${where} names build "${build}", which is neither "${TODAY}" nor a recorded build (RECORDED_BUILDS, test/unit/replay/builds.ts)`);
  for (const set of Object.keys(assignment.sets)) if (!sets.has(set)) problems.push(`sets["${set}"]: there is no set ${set}`);
  for (const name of Object.keys(assignment.files ?? {})) if (!names.has(name)) problems.push(`files["${name}"]: there is no history ${name}`);
  for (const set of [...sets].sort())
    if (!assignment.sets[set]?.length) problems.push(`${set} is assigned to no build: list the builds that must replay it in test/histories/builds.json`);
  const used = new Set<string>();
  for (const h of corpus) {
    const builds = buildsOf(assignment, h);
    builds.forEach((b) => used.add(b));
    if (assignment.files?.[h.name]?.length === 0) problems.push(`${h.name} is assigned to no build (its entry under files is empty)`);
    if (VERSIONING_BEHAVIORS[h.workflowType as keyof typeof VERSIONING_BEHAVIORS] === 'AUTO_UPGRADE' && !builds.includes(TODAY))
      problems.push(
        `${h.name}: a ${h.workflowType} run moves to the current build (AUTO_UPGRADE), so today's code must replay it, but it is assigned to ${builds.join(', ') || 'no build'}`,
      );
  }
  for (const [build, commit] of Object.entries(recorded)) {
    if (!/^[0-9a-f]{40}$/.test(commit)) problems.push(`recorded build ${build}: "${commit}" is not a full commit (40 hex digits)`);
    if (!used.has(build)) problems.push(`recorded build ${build} (${commit}) replays no history: remove it`);
  }
  return problems;
}

/** Every history of the corpus, with the builds that replay it. */
export function assignedHistories(assignment = readAssignment()): (RecordedHistory & { builds: string[] })[] {
  return allHistories().map((h) => ({ ...h, builds: buildsOf(assignment, { ...h, workflowType: workflowTypeOf(h.history) }) }));
}

export const historiesOf = (build: string, assignment = readAssignment()): RecordedHistory[] =>
  assignedHistories(assignment).filter((h) => h.builds.includes(build));

/** Whether the code that made a set (its manifest's commit) is `commit` or came before it; a commit not in the clone throws. */
export function madeBy(set: string, commit: string): boolean {
  const made = manifestOf(set).commit;
  try {
    git(['merge-base', '--is-ancestor', made, commit]);
    return true;
  } catch (error) {
    // Exit 1: not an ancestor. Anything else (128: a commit this clone lacks) is no answer.
    if ((error as { status?: number }).status === 1) return false;
    throw new Error(`${set}: cannot tell whether its commit ${made} came before ${commit} (a shallow clone?)`, { cause: error });
  }
}

export const quietLogger = { trace() {}, debug() {}, info() {}, warn() {}, error: console.error, log() {} } as never;

/** Where recorded builds' bundles are kept: `~/.cache/dispatch-kubeflow/workflow-bundles` (or under $XDG_CACHE_HOME). */
export const bundleCacheDir = (): string =>
  join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'dispatch-kubeflow', 'workflow-bundles');

/** The SDK the bundle's workflow runtime comes from: a cached bundle of another is built again. */
const sdkVersion = (): string =>
  (createRequire(import.meta.url)('@temporalio/workflow/package.json') as { version: string }).version;

const git = (args: string[]): string => execFileSync('git', args, { cwd: REPO_ROOT, encoding: 'utf8', stdio: 'pipe' });

/** Another bundle of a recorded build than its plain one (the patch-site instrumented one, patch-sites.ts). */
export interface BundleVariant {
  /** In the cached file's name: `<commit>.<kind>.js`. */
  kind: string;
  /** Whatever else the bundle is made of: another value builds it again. */
  salt: string;
  /** The bundle of the tree at `root` (the commit's src/ and this checkout's node_modules). */
  make(root: string): Promise<{ code: string }>;
}

/**
 * The workflow bundle of a recorded build: its commit's src/ taken from git into a temporary folder,
 * bundled there with this checkout's node_modules (a symlink), and cached in bundleCacheDir() as
 * `<commit>.js` (with `<commit>.json` naming the SDK it was built with), so built once per machine.
 */
export async function recordedBuildBundle(
  commit: string,
  variant?: BundleVariant,
  progress = (line: string) => void process.stderr.write(`${line}\n`),
): Promise<{ code: string }> {
  const dir = bundleCacheDir();
  const base = join(dir, variant ? `${commit}.${variant.kind}` : commit);
  const file = `${base}.js`;
  const meta = `${base}.json`;
  const made = { commit, sdk: sdkVersion(), ...(variant ? { salt: variant.salt } : {}) };
  if (existsSync(file) && existsSync(meta) && readFileSync(meta, 'utf8') === JSON.stringify(made, null, 1))
    return { code: readFileSync(file, 'utf8') };
  try {
    git(['cat-file', '-e', `${commit}^{commit}`]);
  } catch {
    throw new Error(`recorded build ${commit} is not in this clone (a shallow clone, or not a git checkout): its workflows cannot be bundled; fetch the full history (git fetch --unshallow)`);
  }
  const tree = treeOf(commit, ['src', 'package.json', 'tsconfig.json']);
  const started = Date.now();
  const seconds = () => Math.round((Date.now() - started) / 1000);
  const what = `the ${variant ? `${variant.kind} ` : ''}workflow bundle of recorded build ${commit.slice(0, 12)}`;
  progress(`building ${what} (once per machine, into ${file})`);
  const ticker = setInterval(() => progress(`  still bundling ${commit.slice(0, 12)}: ${seconds()} s`), 5_000);
  try {
    symlinkSync(join(REPO_ROOT, 'node_modules'), join(tree.dir, 'node_modules'));
    const { code } = variant
      ? await variant.make(tree.dir)
      : await bundleWorkflowCode({ workflowsPath: join(tree.dir, 'src', 'workflows', 'index.ts'), logger: quietLogger });
    mkdirSync(dir, { recursive: true });
    // Written aside, then renamed: a reader in another process sees the whole file or none.
    for (const [path, text] of [[file, code], [meta, JSON.stringify(made, null, 1)]] as const) {
      writeFileSync(`${path}.${process.pid}.tmp`, text);
      renameSync(`${path}.${process.pid}.tmp`, path);
    }
    progress(`built ${what} in ${seconds()} s`);
    return { code };
  } finally {
    clearInterval(ticker);
    tree.remove();
  }
}
