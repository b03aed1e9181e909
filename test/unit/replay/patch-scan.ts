// The patches of src/workflows and the histories that take their branches: finds every
// `patched(id)` / `deprecatePatch(id)` call (the id a string literal or a string constant declared
// in the scanned files), instruments the `patched()` calls so that a replay reports which it
// reached and with which answer (patch-sites.ts), and checks from those reports that, for each
// `patched()` call and each workflow type that reaches it, a history reaches it with the marker and
// one without it, so that the replay test runs both branches. See docs/versioning.md.
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

/** A `patched(id)` / `deprecatePatch(id)` call as it stands in a source: where, and its text's span. */
interface FoundCall {
  kind: PatchCallKind;
  arg: ts.Expression | undefined;
  /** file:line */
  where: string;
  /** The call expression's span in the text. */
  start: number;
  end: number;
}

/** Every patch call of one source, and the string constants it declares. */
function findCalls(file: string, text: string): { found: FoundCall[]; constants: Map<string, Set<string>> } {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const constants = new Map<string, Set<string>>();
  const found: FoundCall[] = [];
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
      const callee = ts.isPropertyAccessExpression(node.expression) ? node.expression.name : node.expression;
      if (ts.isIdentifier(callee) && (callee.text === 'patched' || callee.text === 'deprecatePatch')) {
        const start = node.getStart(source);
        const line = source.getLineAndCharacterOfPosition(start).line + 1;
        found.push({ kind: callee.text, arg: node.arguments[0], where: `${file}:${line}`, start, end: node.getEnd() });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { found, constants };
}

/** The patch calls of these sources, and what could not be read (an id that is no string constant). */
export function scanPatchCalls(sources: SourceFile[]): { calls: PatchCall[]; problems: string[] } {
  const constants = new Map<string, Set<string>>();
  const found: FoundCall[] = [];
  for (const { file, text } of sources) {
    const scanned = findCalls(file, text);
    found.push(...scanned.found);
    for (const [name, values] of scanned.constants)
      constants.set(name, new Set([...(constants.get(name) ?? []), ...values]));
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

/**
 * `text` with each `patched(ID)` call (ID a string literal or an identifier) made
 * `<report>("file:line", ID, patched(ID))`, and `importLine` (which must bring `report` in) put
 * first. The call's answer is the report's answer, so the code runs as before; the site is named as
 * scanPatchCalls names it. For a replay that records which patch sites it reached (patch-sites.ts).
 */
export function instrumentPatchCalls(file: string, text: string, report: string, importLine: string): string {
  const { found } = findCalls(file, text);
  let out = text;
  for (const call of [...found].reverse()) {
    if (call.kind !== 'patched' || !call.arg || !(isString(call.arg) || ts.isIdentifier(call.arg))) continue;
    const original = text.slice(call.start, call.end);
    out = `${out.slice(0, call.start)}${report}(${JSON.stringify(call.where)}, ${call.arg.getText()}, ${original})${out.slice(call.end)}`;
  }
  return out === text ? text : `${importLine}\n${out}`;
}

/** One evaluation of a `patched()` call during a replay: its site, the id it asked, its answer. */
export interface SiteReport {
  /** "file:line", as scanPatchCalls names the call. */
  site: string;
  id: string;
  /** true: the history had the marker there (the new branch); false: it had not (the old one). */
  answer: boolean;
}

/** What the coverage check knows of a recorded history once the instrumented replay has run it. */
export interface ReplayedHistory {
  /** "<set>/<file>" */
  name: string;
  workflowType: string;
  /** The ids of its patch markers. */
  patches: string[];
  /** Every patched() evaluation its replay reported (patch-sites.ts). */
  reached: SiteReport[];
}

export const workflowTypeOf = (history: History): string =>
  history.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name ?? '';

const some = (names: string[]): string =>
  names.length <= 3 ? names.join(', ') : `${names.slice(0, 3).join(', ')} and ${names.length - 3} more`;

/**
 * Replay coverage per patch site (docs/versioning.md): for each `patched()` call of src/workflows,
 * and for each workflow type whose replay reaches it, a history of that type that reaches it with
 * the marker (the new branch) and one that reaches it without (the old branch). Reaching is what the
 * replay reported, not what a history's markers or recording date suggest: a history without the
 * marker that never gets to the call (a probe whose Start succeeded, a Start refused before its
 * gates were proven) takes neither branch. A site no history reaches fails too. A
 * `deprecatePatch()` id needs only a history with its marker: its code has only the new branch.
 * Also refused, as signs that the reports cannot be trusted: a report of a site the scanner does not
 * know or of another id, a history whose marker no report answered true, and a true answer in a
 * history without the marker.
 */
export function siteCoverageProblems(calls: PatchCall[], corpus: ReplayedHistory[]): string[] {
  const problems: string[] = [];
  for (const id of [...new Set(calls.map((c) => c.id))].sort()) {
    const of = calls.filter((c) => c.id === id);
    const where = of.map((c) => c.where).join(', ');
    if (new Set(of.map((c) => c.kind)).size > 1) problems.push(`${id}: both patched() and deprecatePatch() (${where})`);
    if (of.some((c) => c.kind === 'deprecatePatch') && !corpus.some((h) => h.patches.includes(id)))
      problems.push(`${id} (${where}): no recorded history has its marker; record a set under the patch`);
  }
  const sites = new Map(calls.filter((c) => c.kind === 'patched').map((c) => [c.where, c]));
  for (const h of corpus)
    for (const r of h.reached) {
      const call = sites.get(r.site);
      if (!call) problems.push(`${h.name}: its replay reported patched(${r.id}) at ${r.site}, which the scanner does not know`);
      else if (call.id !== r.id) problems.push(`${h.name}: its replay reported patched(${r.id}) at ${r.site}, where the scanner reads patched(${call.id})`);
      if (r.answer && !h.patches.includes(r.id)) problems.push(`${h.name}: patched(${r.id}) at ${r.site} answered true, but the history has no marker of ${r.id}`);
    }
  const patchedIds = new Set([...sites.values()].map((c) => c.id));
  for (const h of corpus)
    for (const id of h.patches)
      if (patchedIds.has(id) && !h.reached.some((r) => r.id === id && r.answer))
        problems.push(`${h.name}: has the marker of ${id}, but its replay reported no patched(${id}) answering true (the instrumentation missed it)`);
  for (const [site, call] of [...sites].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const reaching = corpus.flatMap((h) => (h.reached.some((r) => r.site === site) ? [h] : []));
    if (reaching.length === 0) {
      problems.push(`${site} patched(${call.id}): no recorded history reaches it, so replay takes neither of its branches`);
      continue;
    }
    for (const type of [...new Set(reaching.map((h) => h.workflowType))].sort()) {
      const answered = (answer: boolean) =>
        reaching.filter((h) => h.workflowType === type && h.reached.some((r) => r.site === site && r.answer === answer)).map((h) => h.name);
      const marked = answered(true);
      const unmarked = answered(false);
      if (marked.length === 0)
        problems.push(
          `${site} patched(${call.id}), ${type}: no ${type} history reaches it with the marker (only without: ${some(unmarked)}), so replay never takes its new branch`,
        );
      if (unmarked.length === 0)
        problems.push(
          `${site} patched(${call.id}), ${type}: no ${type} history reaches it without the marker (only with: ${some(marked)}), so replay never takes its old branch`,
        );
    }
  }
  return problems;
}

/**
 * The histories that take the old branch of a patch retired since a recorded build: replayed
 * against that build's code instrumented, they report its `patched(id)` answering false for an id
 * that today's code only deprecates. Today's code no longer has that branch, so such a history
 * must not be assigned to today, even where its replay there raises no nondeterminism (two writes
 * of the same activity type in the other order replay cleanly, then act on each other's results),
 * and must be assigned to a recorded build.
 */
export function retiredBranchProblems(
  build: string,
  retired: ReadonlySet<string>,
  histories: (ReplayedHistory & { builds: string[] })[],
  today: string,
): string[] {
  const problems: string[] = [];
  for (const h of histories) {
    const taken = [...new Set(h.reached.filter((r) => !r.answer && retired.has(r.id)).map((r) => `${r.id} (${r.site})`))];
    if (taken.length === 0) continue;
    const what = `${h.name} takes the old branch of retired ${taken.join(', ')} on recorded build ${build}`;
    if (h.builds.includes(today)) problems.push(`${what}: today's code has no such branch, so it must not be assigned to ${today} (test/histories/builds.json)`);
    if (!h.builds.some((b) => b !== today)) problems.push(`${what}: assign it to ${build}`);
  }
  return problems;
}
