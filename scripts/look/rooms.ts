// The reading behind `npm run look`: src/'s files, their imports, rooms, arrows, circles and sizes.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/** This checkout; `npm run look -- <checkout>` reads another (an older commit's worktree, say). */
const THIS_CHECKOUT = resolve(import.meta.dirname, '../..');

/**
 * The rooms from the lowest (imports nothing of the product) to the highest (the entry point). A
 * room may import only rooms before it. observability is low: every room of the shell reports into
 * it (kube's calls are logged there), and it reads nothing of theirs but the core's data. The typed
 * client (what a caller embeds) is below the worker, whose preflight starts the probe through it;
 * the CLI, which runs either, is the top.
 */
export const ROOM_ORDER = ['model', 'contract', 'core', 'observability', 'config', 'kube', 'activities', 'workflows', 'codec', 'client', 'worker', 'cli'] as const;

export interface Arrow {
  from: string;
  to: string;
  /** "file -> file" for each import that makes the arrow. */
  imports: string[];
}

export interface Look {
  rooms: string[];
  arrows: Arrow[];
  upward: Arrow[];
  circles: string[][];
  largestFiles: { path: string; lines: number }[];
  largestFunctions: { path: string; name: string; lines: number }[];
}

function sources(root: string, dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(root, path);
    return entry.name.endsWith('.ts') ? [relative(root, path)] : [];
  });
}

/** The product's files `file` imports, type-only imports included, as repository paths. */
function importsOf(root: string, source: ts.SourceFile, file: string): string[] {
  const specifiers: string[] = [];
  const visit = (node: ts.Node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier))
      specifiers.push(node.moduleSpecifier.text);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteral(node.arguments[0]))
      specifiers.push(node.arguments[0].text);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal))
      specifiers.push(node.argument.literal.text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return specifiers
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) => relative(root, resolve(dirname(join(root, file)), specifier)).replace(/\.js$/, '.ts'));
}

const roomOf = (path: string) => path.split('/')[1]!;

/** Each function, method or arrow function with its name (or where it is) and its length in lines. */
function functionsOf(source: ts.SourceFile, path: string): { path: string; name: string; lines: number }[] {
  const found: { path: string; name: string; lines: number }[] = [];
  const lineOf = (pos: number) => source.getLineAndCharacterOfPosition(pos).line;
  const visit = (node: ts.Node) => {
    if (ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isArrowFunction(node) || ts.isFunctionExpression(node)) {
      const parent = node.parent;
      const name =
        (ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node)) && node.name
          ? node.name.getText(source)
          : parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) ? parent.name.getText(source) : `(anonymous at line ${lineOf(node.getStart(source)) + 1})`;
      found.push({ path, name, lines: lineOf(node.getEnd()) - lineOf(node.getStart(source)) + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Every cycle of file imports, each once, starting from its smallest path. */
function circlesOf(graph: Map<string, string[]>): string[][] {
  // Tarjan's strongly connected components, then one shortest cycle through each component's first file.
  let index = 0;
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const connect = (file: string) => {
    indexOf.set(file, index);
    low.set(file, index++);
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue;
      if (!indexOf.has(next)) {
        connect(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(file, Math.min(low.get(file)!, indexOf.get(next)!));
    }
    if (low.get(file) === indexOf.get(file)) {
      const component: string[] = [];
      for (;;) {
        const member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
        if (member === file) break;
      }
      if (component.length > 1 || (graph.get(file) ?? []).includes(file)) components.push(component.sort());
    }
  };
  for (const file of [...graph.keys()].sort()) if (!indexOf.has(file)) connect(file);
  return components.map((component) => {
    const members = new Set(component);
    const start = component[0]!;
    const previous = new Map<string, string>();
    const queue = [start];
    while (queue.length > 0) {
      const file = queue.shift()!;
      for (const next of graph.get(file) ?? []) {
        if (!members.has(next)) continue;
        if (next === start) {
          const cycle = [start];
          for (let at = file; at !== start; at = previous.get(at)!) cycle.splice(1, 0, at);
          return [...cycle, start];
        }
        if (!previous.has(next)) {
          previous.set(next, file);
          queue.push(next);
        }
      }
    }
    return component;
  });
}

export function lookAtSources(root = THIS_CHECKOUT): Look {
  const files = sources(root, join(root, 'src')).sort();
  const graph = new Map<string, string[]>();
  const largestFiles: Look['largestFiles'] = [];
  const largestFunctions: Look['largestFunctions'] = [];
  for (const file of files) {
    const text = readFileSync(join(root, file), 'utf8');
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    graph.set(file, importsOf(root, source, file));
    largestFiles.push({ path: file, lines: text.split('\n').length - (text.endsWith('\n') ? 1 : 0) });
    largestFunctions.push(...functionsOf(source, file));
  }
  const arrows = new Map<string, Arrow>();
  for (const [file, imports] of graph)
    for (const target of imports) {
      const [from, to] = [roomOf(file), roomOf(target)];
      if (from === to || !graph.has(target)) continue;
      const key = `${from}->${to}`;
      const arrow = arrows.get(key) ?? { from, to, imports: [] };
      arrow.imports.push(`${file} -> ${target}`);
      arrows.set(key, arrow);
    }
  const rank = (room: string) => {
    const at = (ROOM_ORDER as readonly string[]).indexOf(room);
    return at === -1 ? Number.POSITIVE_INFINITY : at;
  };
  const sorted = [...arrows.values()].sort((a, b) => rank(a.from) - rank(b.from) || rank(a.to) - rank(b.to));
  return {
    rooms: [...new Set(files.map(roomOf))].sort((a, b) => rank(a) - rank(b)),
    arrows: sorted,
    upward: sorted.filter((arrow) => rank(arrow.to) >= rank(arrow.from)),
    circles: circlesOf(graph),
    largestFiles: largestFiles.sort((a, b) => b.lines - a.lines),
    largestFunctions: largestFunctions.sort((a, b) => b.lines - a.lines),
  };
}
