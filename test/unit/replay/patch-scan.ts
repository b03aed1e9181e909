// The patches of src/workflows and the histories that take their branches: finds every
// `patched(id)` / `deprecatePatch(id)` call (the id a string literal or a string constant declared
// in the scanned files), and checks the corpus has, for each id, a history with the patch's marker
// and, for a `patched()` id, per workflow type that has the marker, one recorded before the patch
// without it, so that the replay test runs both branches. See docs/versioning.md.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import type { History } from './history-json.js';

export type PatchCallKind = 'patched' | 'deprecatePatch';

export interface PatchCall {
  id: string;
  kind: PatchCallKind;
  /** file:line */
  where: string;
}

export interface SourceFile {
  file: string;
  text: string;
}

/** Every .ts file under `dir`, its name relative to `root`. */
export function sourcesUnder(dir: string, root: string): SourceFile[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .sort()
    .map((file) => ({ file: relative(root, join(dir, file)), text: readFileSync(join(dir, file), 'utf8') }));
}

const isString = (node: ts.Node | undefined): node is ts.StringLiteral | ts.NoSubstitutionTemplateLiteral =>
  !!node && (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node));

/** The patch calls of these sources, and what could not be read (an id that is no string constant). */
export function scanPatchCalls(sources: SourceFile[]): { calls: PatchCall[]; problems: string[] } {
  const parsed = sources.map(({ file, text }) => ({
    file,
    source: ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true),
  }));
  const constants = new Map<string, Set<string>>();
  const found: { kind: PatchCallKind; arg: ts.Expression | undefined; where: string }[] = [];
  for (const { file, source } of parsed) {
    const visit = (node: ts.Node): void => {
      if (
        ts.isVariableDeclaration(node) &&
        ts.isIdentifier(node.name) &&
        isString(node.initializer) &&
        ts.isVariableDeclarationList(node.parent) &&
        node.parent.flags & ts.NodeFlags.Const
      ) {
        const values = constants.get(node.name.text) ?? new Set<string>();
        constants.set(node.name.text, values.add(node.initializer.text));
      }
      if (ts.isCallExpression(node)) {
        const callee = ts.isPropertyAccessExpression(node.expression)
          ? node.expression.name
          : node.expression;
        if (ts.isIdentifier(callee) && (callee.text === 'patched' || callee.text === 'deprecatePatch')) {
          const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
          found.push({ kind: callee.text, arg: node.arguments[0], where: `${file}:${line}` });
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  const calls: PatchCall[] = [];
  const problems: string[] = [];
  for (const { kind, arg, where } of found) {
    if (isString(arg)) {
      calls.push({ id: arg.text, kind, where });
      continue;
    }
    const values = arg && ts.isIdentifier(arg) ? constants.get(arg.text) : undefined;
    if (values?.size === 1) calls.push({ id: [...values][0]!, kind, where });
    else
      problems.push(
        `${where}: ${kind}(${arg?.getText() ?? ''}): the id must be a string literal or a string const declared once in the scanned files`,
      );
  }
  return { calls, problems };
}

/** What the coverage check needs to know of a recorded history. */
export interface CorpusHistory {
  /** "<set>/<file>" */
  name: string;
  /** The set's manifest recordedAt (ISO 8601). */
  recordedAt: string;
  workflowType: string;
  /** The ids of its patch markers. */
  patches: string[];
}

export const workflowTypeOf = (history: History): string =>
  history.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name ?? '';

/**
 * For each id: a history with its marker; for a `patched()` id also, per workflow type that has
 * the marker, a history of that type without it, from a set recorded before the first set with it.
 * A `deprecatePatch()` id needs no such history: its code has only the new branch, and a history
 * without the marker would not replay (docs/versioning.md removes those sets with that commit).
 */
export function coverageProblems(calls: PatchCall[], corpus: CorpusHistory[]): string[] {
  const problems: string[] = [];
  const ids = [...new Set(calls.map((c) => c.id))].sort();
  for (const id of ids) {
    const kinds = new Set(calls.filter((c) => c.id === id).map((c) => c.kind));
    const where = calls
      .filter((c) => c.id === id)
      .map((c) => c.where)
      .join(', ');
    if (kinds.size > 1) problems.push(`${id}: both patched() and deprecatePatch() (${where})`);
    const marked = corpus.filter((h) => h.patches.includes(id));
    if (marked.length === 0) {
      problems.push(`${id} (${where}): no recorded history has its marker; record a set under the patch`);
      continue;
    }
    if (!kinds.has('patched')) continue;
    const introduced = marked.map((h) => h.recordedAt).sort()[0]!;
    for (const type of [...new Set(marked.map((h) => h.workflowType))].sort()) {
      const before = corpus.filter(
        (h) => h.workflowType === type && !h.patches.includes(id) && h.recordedAt < introduced,
      );
      if (before.length === 0)
        problems.push(
          `${id} (${where}): no ${type} history recorded before the patch (before ${introduced}) without its marker, so replay never takes its old branch`,
        );
    }
  }
  return problems;
}
