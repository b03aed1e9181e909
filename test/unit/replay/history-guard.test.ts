// The rules of the replay corpus (docs/versioning.md, test/histories/README.md), enforced:
// a committed history is never edited or re-recorded (test/histories/SHA256SUMS, whose committed
// lines are only ever appended to, after the one baseline), and the patch calls of src/workflows
// can be read (their histories of both branches: patch-sites.test.ts). Each check is also run on
// made-up input it must refuse, so that none passes by checking nothing.
import { describe, expect, it } from 'vitest';
import {
  appendOnlyProblems,
  hasGitHistory,
  parseSums,
  REPO_ROOT,
  sha256,
  sumsLine,
  sumsProblems,
  sumsVersions,
  verifyCorpus,
  type SumsVersion,
} from './history-sums.js';
import { instrumentPatchCalls, scanPatchCalls } from './patch-scan.js';

const hash = (s: string) => sha256(s);
const sums = (...lines: string[]) => lines.map((l) => `${l}\n`).join('');

describe('test/histories/SHA256SUMS', () => {
  it('lists every file of every set with its sha256, sorted, and nothing else', () => {
    expect(verifyCorpus()).toEqual([]);
  });

  it('catches a history whose hash differs, one not listed, and a listed one that is gone', () => {
    const listed = new Map([
      ['01-a/start.json', hash('old')],
      ['01-a/gone.json', hash('gone')],
    ]);
    const actual = new Map([
      ['01-a/start.json', hash('edited')],
      ['01-a/new.json', hash('new')],
    ]);
    const problems = sumsProblems(listed, actual);
    expect(problems).toHaveLength(3);
    expect(problems[0]).toMatch(/^01-a\/start\.json has sha256 .* SHA256SUMS says /);
    expect(problems[1]).toBe('01-a/new.json is not in SHA256SUMS');
    expect(problems[2]).toBe('01-a/gone.json is in SHA256SUMS but there is no such file');
    expect(sumsProblems(listed, new Map(listed))).toEqual([]);
  });

  it('must be well-formed: the baseline header only as the first line, entries sorted and each once', () => {
    const a = sumsLine('01-a/a.json', hash('a'));
    const b = sumsLine('01-a/b.json', hash('b'));
    expect(parseSums(sums('# baseline 2026-12-01', a, b))).toMatchObject({
      baseline: '# baseline 2026-12-01',
      problems: [],
    });
    expect(parseSums(sums(a, b)).entries.size).toBe(2);
    expect(parseSums(sums(a, '# baseline 2026-12-01', b)).problems).toEqual([
      expect.stringMatching(/^SHA256SUMS line 2: .* as the first line/),
    ]);
    expect(parseSums(sums(b, a)).problems).toEqual([
      expect.stringMatching(/line 2: .*\(sorted, each once\)/),
    ]);
    expect(parseSums(sums(a, a)).problems).toHaveLength(1);
    expect(parseSums(sums(`${hash('a')} 01-a/a.json`)).problems).toHaveLength(1);
  });
});

describe('SHA256SUMS only ever gains lines', () => {
  const git = hasGitHistory();
  if (!git)
    console.warn(
      `history-guard: ${REPO_ROOT} is not a git checkout: the append-only check of SHA256SUMS is skipped`,
    );

  it.skipIf(!git)(
    `in this checkout's git history, from the baseline (or its first commit) on${git ? '' : ' (SKIPPED: not a git checkout)'}`,
    () => {
      const versions = sumsVersions();
      expect(versions.length).toBeGreaterThan(0);
      expect(appendOnlyProblems(versions)).toEqual([]);
    },
  );

  const v = (label: string, ...lines: string[]): SumsVersion => ({ label, text: sums(...lines) });

  it('the rule: adding lines passes; removing or changing a committed line fails', () => {
    expect(appendOnlyProblems([v('c1', 'x'), v('c2', 'x', 'y'), v('c3', 'x', 'y', 'z')])).toEqual([]);
    expect(appendOnlyProblems([v('c1', 'x', 'y'), v('c2', 'x')])).toEqual([
      'c2: line 2 of the version before (c1) was removed: "y" (lines may only be added)',
    ]);
    // A history edited together with its hash.
    expect(appendOnlyProblems([v('c1', 'x', 'y'), v('c2', 'x', "y'", 'z')])).toEqual([
      `c2: line 2 of the version before (c1) was changed to "y'": "y" (lines may only be added)`,
    ]);
  });

  it('a merge of two branches that each appended a set keeps every line of both after the common ones; losing or changing one fails', () => {
    const base = v('b', 'x');
    const left = { ...v('l', 'x', 'y'), parents: [base] };
    const right = { ...v('r', 'x', 'z'), parents: [base] };
    const merged = (...lines: string[]) => ({ ...v('m', ...lines), parents: [left, right], base });
    expect(appendOnlyProblems([base, left, right, merged('x', 'y', 'z')])).toEqual([]);
    expect(appendOnlyProblems([base, left, right, merged('x', 'z', 'y')])).toEqual([]);
    expect(appendOnlyProblems([base, left, right, merged('x', 'y')])).toEqual([
      'm: "z" of r (merged) is gone or changed (lines may only be added)',
    ]);
    expect(appendOnlyProblems([base, left, right, merged('y', 'x', 'z')])).toEqual([
      'm: line 1 of the version before (b) was changed to "y": "x" (lines may only be added)',
    ]);
  });

  it('the baseline restarts the file once; what came before it is not checked; a second baseline is refused', () => {
    const baseline = [
      v('c1', 'x', 'y'),
      v('c2', 'x'),
      v('c3', '# baseline 2026-12-01', 'n'),
      v('c4', '# baseline 2026-12-01', 'n', 'm'),
    ];
    expect(appendOnlyProblems(baseline)).toEqual([]);
    expect(appendOnlyProblems([...baseline, v('c5', '# baseline 2027-01-01', 'p')])).toEqual([
      'c5: a second baseline ("# baseline 2027-01-01") is refused; the baseline is "# baseline 2026-12-01" (c3)',
    ]);
    expect(appendOnlyProblems([...baseline, v('c5', '# baseline 2026-12-01', 'm')])).toHaveLength(1);
  });
});

// Which histories take which branch of each patch: patch-sites.test.ts (an instrumented replay).
describe('the patch scanner', () => {
  it('finds patched() and deprecatePatch() and resolves their string constants', () => {
    const { calls, problems } = scanPatchCalls([
      {
        file: 'a.ts',
        text: [
          "import { patched, deprecatePatch } from '@temporalio/workflow';",
          "export const NEW_STEP = 'new-step';",
          '// patched(NOT_A_CALL) in a comment is no call',
          'if (patched(NEW_STEP)) run();',
          "deprecatePatch('old-step');",
          'wf.patched(OTHER);',
        ].join('\n'),
      },
      { file: 'b.ts', text: 'export const OTHER = `other-step`;\nconst x = patched(compute());' },
    ]);
    expect(calls).toEqual([
      { id: 'new-step', kind: 'patched', where: 'a.ts:4' },
      { id: 'old-step', kind: 'deprecatePatch', where: 'a.ts:5' },
      { id: 'other-step', kind: 'patched', where: 'a.ts:6' },
    ]);
    expect(problems).toEqual([expect.stringMatching(/^b\.ts:2: patched\(compute\(\)\): the id must be/)]);
  });

  it('instruments each patched() call at the site it names, leaving deprecatePatch() and ids it cannot read alone', () => {
    const text = [
      "import { patched, deprecatePatch } from '@temporalio/workflow';",
      "const NEW_STEP = 'new-step';",
      'const go = ready && patched(NEW_STEP);',
      "deprecatePatch('old-step'); if (wf.patched('other')) run(); patched(compute());",
    ].join('\n');
    const out = instrumentPatchCalls('src/a.ts', text, 'report', "import { report } from 'sink';");
    expect(out.split('\n')).toEqual([
      "import { report } from 'sink';",
      "import { patched, deprecatePatch } from '@temporalio/workflow';",
      "const NEW_STEP = 'new-step';",
      'const go = ready && report("src/a.ts:3", NEW_STEP, patched(NEW_STEP));',
      "deprecatePatch('old-step'); if (report(\"src/a.ts:4\", 'other', wf.patched('other'))) run(); patched(compute());",
    ]);
    expect(instrumentPatchCalls('src/b.ts', 'const x = 1;', 'report', 'import nothing;')).toBe('const x = 1;');
  });
});
