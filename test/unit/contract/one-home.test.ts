// The Temporal contract has one home, src/contract/ (names.ts): no workflow type, workflow id
// prefix (`start/`, `probe/`, `watch/`, ...), search attribute, query, signal or patch id is written
// as a string literal anywhere else in src/, and every patched(), defineQuery() and defineSignal()
// outside src/contract takes its name from src/contract/names.ts, so a new patch, query or signal
// cannot be declared elsewhere either; a patched() id must be one of PATCH_IDS, the list the literal
// check reads. Comments are not read: only the code's strings.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import * as Names from '../../../src/contract/names.js';
import { PATCH_IDS, PROGRESS_QUERY, SearchAttributes, WATCH_WAKE_SIGNAL, WorkflowTypes } from '../../../src/contract/names.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const SRC = join(ROOT, 'src');
const CONTRACT = join(SRC, 'contract');

/** Every .ts file under `dir` outside src/contract, relative to the repository root. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return path === CONTRACT ? [] : sources(path);
    return entry.name.endsWith('.ts') ? [relative(ROOT, path)] : [];
  });
}

/** The names a literal may not equal, each with what it is. */
const EXACT = new Map<string, string>([
  ...Object.values(WorkflowTypes).map((type) => [type, 'workflow type'] as const),
  ...Object.values(SearchAttributes).map((name) => [name, 'search attribute'] as const),
  [PROGRESS_QUERY, 'query name'],
  [WATCH_WAKE_SIGNAL, 'signal name'],
  ...PATCH_IDS.map((id) => [id, 'patch id'] as const),
]);

/** What a workflow id begins with: `<workflow key>/` (`start/`, `probe/`, `capabilities/`, `open/`, ...). */
const ID_PREFIXES = Object.keys(WorkflowTypes).map((key) => `${key}/`);

/** The calls whose first argument names a contract entry, so must come from src/contract/names.ts. */
const NAMED_BY_CONTRACT = new Set(['patched', 'deprecatePatch', 'defineQuery', 'defineSignal', 'defineUpdate']);

const PATCH_CALLS = new Set(['patched', 'deprecatePatch']);
const isPatchId = (value: unknown): boolean => (PATCH_IDS as readonly unknown[]).includes(value);

/** Where the contract's names are written as literals in `text`, or declared outside it: "file:line: why". */
function contractLiterals(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const fromNames = new Set<string>();
  for (const statement of source.statements)
    if (ts.isImportDeclaration(statement) && ts.isStringLiteral(statement.moduleSpecifier) && /(^|\/)contract\/names\.js$/.test(statement.moduleSpecifier.text)) {
      const bindings = statement.importClause?.namedBindings;
      if (bindings && ts.isNamedImports(bindings)) for (const element of bindings.elements) fromNames.add(element.name.text);
    }
  const found: string[] = [];
  const at = (node: ts.Node, why: string) => found.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}: ${why}`);
  const visit = (node: ts.Node): void => {
    const isModuleSpecifier = node.parent !== undefined && (ts.isImportDeclaration(node.parent) || ts.isExportDeclaration(node.parent) || ts.isExternalModuleReference(node.parent));
    if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateHead(node)) && !isModuleSpecifier) {
      const kind = ts.isTemplateHead(node) ? undefined : EXACT.get(node.text);
      if (kind) at(node, `${kind} ${JSON.stringify(node.text)} written as a literal`);
      const prefix = ID_PREFIXES.find((p) => node.text.startsWith(p));
      if (prefix) at(node, `workflow id prefix ${JSON.stringify(prefix)} written as a literal (${JSON.stringify(node.text)})`);
    }
    if (ts.isCallExpression(node)) {
      const callee = ts.isPropertyAccessExpression(node.expression) ? node.expression.name : node.expression;
      const arg = node.arguments[0];
      if (ts.isIdentifier(callee) && NAMED_BY_CONTRACT.has(callee.text) && !(arg && ts.isIdentifier(arg) && fromNames.has(arg.text)))
        at(node, `${callee.text}(${arg?.getText(source) ?? ''}): its name must be imported from src/contract/names.ts`);
      else if (ts.isIdentifier(callee) && PATCH_CALLS.has(callee.text) && !isPatchId((Names as Record<string, unknown>)[(arg as ts.Identifier).text]))
        at(node, `${callee.text}(${arg!.getText(source)}): not one of PATCH_IDS in src/contract/names.ts`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('the Temporal contract has one home, src/contract/', () => {
  const files = sources(SRC);

  it('reads the sources: src/workflows, src/client and src/worker, not src/contract', () => {
    expect(files).toContain('src/workflows/progress.ts');
    expect(files).toContain('src/client/dispatch-client.ts');
    expect(files.some((f) => f.startsWith('src/contract/'))).toBe(false);
    expect(EXACT.size).toBe(Object.keys(WorkflowTypes).length + Object.keys(SearchAttributes).length + 2 + PATCH_IDS.length);
  });

  it('finds each kind of literal and a name declared outside the contract', () => {
    const sample = [
      "import { WATCH_WAKE_SIGNAL, WATCH_WOKEN } from '../contract/names.js';",
      "const a = 'StartTrainJob';",
      'const b = `probe/${ns}`;',
      "const c = 'watch/ns/name/uid';",
      "const d = defineQuery('progress');",
      "const e = patched('my-new-patch');",
      'const f = patched(WATCH_WOKEN) && patched(WATCH_WAKE_SIGNAL);',
      "const g = handle.signal('wake');",
      "const h = 'DispatchStep';",
      "const i = 'start-folded-calls';",
      "const j = 'watch'; const k = `${op}/${ns}`; // StartTrainJob in a comment",
    ].join('\n');
    expect(contractLiterals('sample.ts', sample)).toEqual([
      'sample.ts:2: workflow type "StartTrainJob" written as a literal',
      'sample.ts:3: workflow id prefix "probe/" written as a literal ("probe/")',
      'sample.ts:4: workflow id prefix "watch/" written as a literal ("watch/ns/name/uid")',
      "sample.ts:5: defineQuery('progress'): its name must be imported from src/contract/names.ts",
      'sample.ts:5: query name "progress" written as a literal',
      "sample.ts:6: patched('my-new-patch'): its name must be imported from src/contract/names.ts",
      'sample.ts:7: patched(WATCH_WAKE_SIGNAL): not one of PATCH_IDS in src/contract/names.ts',
      'sample.ts:8: signal name "wake" written as a literal',
      'sample.ts:9: search attribute "DispatchStep" written as a literal',
      'sample.ts:10: patch id "start-folded-calls" written as a literal',
    ]);
  });

  it('no workflow type, id prefix, search attribute, query, signal or patch id is written anywhere else in src/', () => {
    const found = files.flatMap((file) => contractLiterals(file, readFileSync(join(ROOT, file), 'utf8')));
    expect(found).toEqual([]);
  });
});
