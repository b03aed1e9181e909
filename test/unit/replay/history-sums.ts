// test/histories/SHA256SUMS: the sha256 of every file of every recorded set, in `sha256sum`
// format (`<hash>  <set>/<file>`, paths relative to test/histories, sorted), so that a committed
// history that is edited or re-recorded is caught. Lines are only ever appended; the one exception
// is the baseline, a first line `# baseline <date>` written once, when a fresh set replaced the
// whole corpus, from which on the append-only rule counts. scripts/record-histories.ts writes it,
// history-guard.test.ts checks it. docs/versioning.md says why.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { HISTORIES_DIR, setNames } from './corpus.js';

export const SUMS_FILE = join(HISTORIES_DIR, 'SHA256SUMS');
/** The same file, as git names it from the repository's root. */
export const SUMS_GIT_PATH = 'test/histories/SHA256SUMS';
export const REPO_ROOT = join(HISTORIES_DIR, '..', '..');

const BASELINE = /^# baseline \d{4}-\d{2}-\d{2}$/;
const ENTRY = /^([0-9a-f]{64}) {2}(\S(?:.*\S)?)$/;

export const baselineHeader = (date: Date): string => `# baseline ${date.toISOString().slice(0, 10)}`;
export const isBaselineHeader = (line: string | undefined): boolean => BASELINE.test(line ?? '');

/** The lines of a text, without the empty string after a final newline. */
export function linesOf(text: string): string[] {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

export const sha256 = (bytes: Buffer | string): string => createHash('sha256').update(bytes).digest('hex');

export const sumsLine = (path: string, hash: string): string => `${hash}  ${path}`;

export interface ParsedSums {
  /** The `# baseline <date>` first line, if there is one. */
  baseline?: string;
  /** Path (relative to test/histories) to hash, in file order. */
  entries: Map<string, string>;
  /** What is wrong with the file's form: a bad line, a header elsewhere than first, disorder. */
  problems: string[];
}

export function parseSums(text: string): ParsedSums {
  const parsed: ParsedSums = { entries: new Map(), problems: [] };
  let last = '';
  for (const [index, line] of linesOf(text).entries()) {
    const where = `SHA256SUMS line ${index + 1}`;
    if (index === 0 && isBaselineHeader(line)) {
      parsed.baseline = line;
      continue;
    }
    if (line.startsWith('#')) {
      parsed.problems.push(
        `${where}: "${line}": the only comment allowed is one "# baseline YYYY-MM-DD", as the first line`,
      );
      continue;
    }
    const match = ENTRY.exec(line);
    if (!match) {
      parsed.problems.push(`${where}: "${line}" is not "<sha256>  <set>/<file>"`);
      continue;
    }
    const [, hash, path] = match as unknown as [string, string, string];
    if (path <= last) parsed.problems.push(`${where}: ${path} is not after ${last} (sorted, each once)`);
    last = path;
    parsed.entries.set(path, hash);
  }
  return parsed;
}

/** Every file of every set folder, as `<set>/<file>`, sorted. */
export function corpusFiles(): string[] {
  const dir = HISTORIES_DIR;
  return setNames()
    .flatMap((set) =>
      readdirSync(join(dir, set), { recursive: true, encoding: 'utf8' })
        .filter((file) => statSync(join(dir, set, file)).isFile())
        .map((file) => `${set}/${file.split('\\').join('/')}`),
    )
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The hash of each of these files (paths relative to test/histories). */
export const hashesOf = (paths: string[], dir = HISTORIES_DIR): Map<string, string> =>
  new Map(paths.map((path) => [path, sha256(readFileSync(join(dir, path)))]));

/** What differs between SHA256SUMS's entries and the files as they are. */
export function sumsProblems(listed: Map<string, string>, actual: Map<string, string>): string[] {
  const problems: string[] = [];
  for (const [path, hash] of actual) {
    const expected = listed.get(path);
    if (expected === undefined) problems.push(`${path} is not in SHA256SUMS`);
    else if (expected !== hash)
      problems.push(`${path} has sha256 ${hash}, SHA256SUMS says ${expected}: a recorded file was changed`);
  }
  for (const path of listed.keys())
    if (!actual.has(path)) problems.push(`${path} is in SHA256SUMS but there is no such file`);
  return problems;
}

/** Everything wrong with the corpus on disk against test/histories/SHA256SUMS; empty when sound. */
export function verifyCorpus(): string[] {
  const files = corpusFiles();
  if (!existsSync(SUMS_FILE))
    return files.length > 0 ? [`test/histories/SHA256SUMS is missing (${files.length} files in sets)`] : [];
  const parsed = parseSums(readFileSync(SUMS_FILE, 'utf8'));
  return [...parsed.problems, ...sumsProblems(parsed.entries, hashesOf(files))];
}

/** One version of SHA256SUMS: as a commit left it, or as the working tree has it. */
export interface SumsVersion {
  label: string;
  text: string;
  /**
   * What this version was made from: its commit's parents' versions (two for a merge of branches
   * that each appended a set). Without it, the version before in the list.
   */
  parents?: SumsVersion[];
  /** For a merge: the version at the merge base, which both branches only appended to. */
  base?: SumsVersion;
}

/**
 * The append-only rule over the versions of SHA256SUMS, oldest first. Versions before the first
 * one that begins with a baseline header are not looked at (the baseline replaced them); from it
 * (or from the first version, before any baseline) on, each version must keep every line of the
 * one before, in place, and may only add lines after them. A later version that begins with a new
 * baseline header is a second baseline, and refused like any other rewrite.
 */
export function appendOnlyProblems(versions: SumsVersion[]): string[] {
  const baselineAt = versions.findIndex((v) => isBaselineHeader(linesOf(v.text)[0]));
  const start = Math.max(0, baselineAt);
  const problems: string[] = [];
  for (let i = start + 1; i < versions.length; i++) {
    const version = versions[i]!;
    const parents = version.parents ?? [versions[i - 1]!];
    if (parents.length < 2) {
      const problem = prefixProblem(version, parents[0] ?? versions[i - 1]!, versions[baselineAt]);
      if (problem) problems.push(problem);
      continue;
    }
    // A merge of branches that each appended: the merge base's lines stay first and in place, and
    // no line of either branch is lost or changed (their new lines land in either order).
    if (version.base) {
      const problem = prefixProblem(version, version.base, versions[baselineAt]);
      if (problem) problems.push(problem);
    }
    const now = new Set(linesOf(version.text));
    for (const parent of parents)
      for (const line of linesOf(parent.text))
        if (!now.has(line))
          problems.push(
            `${version.label}: "${line}" of ${parent.label} (merged) is gone or changed (lines may only be added)`,
          );
  }
  return problems;
}

/** Why `version` does not keep every line of `before` in place, or undefined when it does. */
function prefixProblem(
  version: SumsVersion,
  before: SumsVersion,
  baseline: SumsVersion | undefined,
): string | undefined {
  const was = linesOf(before.text);
  const now = linesOf(version.text);
  const at = was.findIndex((line, n) => now[n] !== line);
  if (at < 0) return undefined;
  if (baseline && at === 0 && isBaselineHeader(now[0]))
    return `${version.label}: a second baseline ("${now[0]}") is refused; the baseline is "${was[0]}" (${baseline.label})`;
  return `${version.label}: line ${at + 1} of the version before (${before.label}) was ${
    now[at] === undefined ? 'removed' : `changed to "${now[at]}"`
  }: "${was[at]}" (lines may only be added)`;
}

const git = (args: string[]): string =>
  execFileSync('git', args, { cwd: REPO_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/** Whether REPO_ROOT is a git checkout with at least one commit. */
export function hasGitHistory(): boolean {
  try {
    git(['log', '-1', '--format=%H']);
    return true;
  } catch {
    return false;
  }
}

/** SHA256SUMS as `commit` left it, or undefined where the commit has none. */
function versionAt(commit: string): SumsVersion | undefined {
  try {
    return { label: `commit ${commit.slice(0, 12)}`, text: git(['show', `${commit}:${SUMS_GIT_PATH}`]) };
  } catch {
    return undefined;
  }
}

/** SHA256SUMS at the merge base of `commits`; undefined in a shallow clone that lacks it. */
function mergeBaseVersion(commits: string[]): SumsVersion | undefined {
  try {
    return versionAt(git(['merge-base', ...commits]).trim());
  } catch {
    return undefined;
  }
}

/**
 * Every committed version of SHA256SUMS, oldest first (commits that deleted it left out), then
 * the working tree's if it differs from the last commit's. Only what this clone holds: a shallow
 * clone starts at its first commit.
 */
export function sumsVersions(): SumsVersion[] {
  const commits = git(['log', '--topo-order', '--reverse', '--format=%H', '--', SUMS_GIT_PATH])
    .split('\n')
    .filter(Boolean);
  const versions: SumsVersion[] = [];
  for (const commit of commits) {
    const version = versionAt(commit);
    if (!version) continue; // This commit deleted it.
    // Compared with what it was made from: each parent's version (a merge has two).
    const parentCommits = git(['rev-list', '--parents', '-n', '1', commit]).trim().split(' ').slice(1);
    const parents = parentCommits.map(versionAt).filter((p): p is SumsVersion => p !== undefined);
    if (parents.length > 0) version.parents = parents;
    if (parentCommits.length > 1) version.base = mergeBaseVersion(parentCommits);
    versions.push(version);
  }
  if (existsSync(SUMS_FILE)) {
    const text = readFileSync(SUMS_FILE, 'utf8');
    if (versions.at(-1)?.text !== text) versions.push({ label: 'the working tree', text });
  }
  return versions;
}
