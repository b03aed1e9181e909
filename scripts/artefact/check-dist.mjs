#!/usr/bin/env node
// Checks the compiled code of a production install (package.json, node_modules without dev
// dependencies, dist/), as the Dockerfile ships it, with plain node:
//   1. dist/ holds only the build of src/: each dist/**/*.js but the workflow bundles has its
//      src/**/*.ts (with --sources; tsconfig.build.json compiles src alone);
//   2. every import in dist/**/*.js is a Node built-in, a production dependency of package.json, or
//      a file inside dist/ that exists: nothing from dev/ or test/, nothing of a devDependency
//      (@temporalio/testing, vitest, fast-check, ...);
//   3. the workflow bundles hold only modules of src/ and of packages the production install has,
//      none a devDependency;
//   4. every dist/**/*.js module imports, one by one, with only the production node_modules.
//
//   node check-dist.mjs [--root <dir>] [--sources <src dir>]
//
// Exits 1, naming each offending file and import, on any failure.
/* global console, process */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({
  options: { root: { type: 'string', default: process.cwd() }, sources: { type: 'string' } },
});
const root = resolve(args.root);
const dist = join(root, 'dist');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const dependencies = new Set(Object.keys(pkg.dependencies ?? {}));
const devDependencies = new Set(Object.keys(pkg.devDependencies ?? {}));
const builtins = new Set(builtinModules);
const failures = [];
const fail = (line) => failures.push(line);

/** The workflow bundles (scripts/build-workflow-bundle.ts): code for the workflow sandbox, not modules. */
const isBundle = (file) => dirname(file) === dist && /^workflow-bundle.*\.js$/.test(relative(dist, file));

const walk = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? walk(join(dir, d.name)) : [join(dir, d.name)],
  );
const files = existsSync(dist) ? walk(dist) : [];
const modules = files.filter((f) => f.endsWith('.js') && !isBundle(f)).sort();
const bundles = files.filter(isBundle).sort();
if (modules.length === 0) fail(`no compiled modules under ${dist}`);
if (bundles.length === 0) fail(`no workflow bundle under ${dist}`);

/** "@scope/name/sub/path" → "@scope/name"; "name/sub" → "name". */
const packageOf = (specifier) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

// 1. Only src/'s build.
if (args.sources) {
  const sources = resolve(args.sources);
  for (const file of modules) {
    const source = join(sources, relative(dist, file)).replace(/\.js$/, '.ts');
    if (!existsSync(source))
      fail(`${relative(root, file)}: not the build of a file of src/ (no ${relative(root, source)})`);
  }
}

// 2. Imports: static (import/export ... from), side-effect imports, import('...'), require('...').
const IMPORTS = [
  /(?:^|[\n;])\s*(?:import|export)\s[^;'"]*?\sfrom\s*['"]([^'"]+)['"]/g,
  /(?:^|[\n;])\s*import\s*['"]([^'"]+)['"]/g,
  /\bimport\s*\(\s*(?:\/\*[\s\S]*?\*\/\s*)?['"]([^'"]+)['"]\s*\)/g,
  /\brequire(?:\.resolve)?\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
];
let imports = 0;
for (const file of modules) {
  const text = readFileSync(file, 'utf8');
  const where = relative(root, file);
  for (const pattern of IMPORTS) {
    for (const [, specifier] of text.matchAll(pattern)) {
      imports++;
      if (specifier.startsWith('.') || specifier.startsWith('/')) {
        const target = resolve(dirname(file), specifier);
        if (!target.startsWith(dist + '/'))
          fail(`${where}: imports ${specifier}, outside dist/ (${relative(root, target)})`);
        else if (!existsSync(target)) fail(`${where}: imports ${specifier}, which is not in dist/`);
      } else if (specifier.startsWith('node:') || builtins.has(specifier)) {
        // A Node built-in.
      } else if (devDependencies.has(packageOf(specifier))) {
        fail(`${where}: imports ${specifier}, a devDependency`);
      } else if (!dependencies.has(packageOf(specifier))) {
        fail(`${where}: imports ${specifier}, not a dependency of package.json`);
      }
    }
  }
}

// 3. What the bundles were made of: webpack names each module it bundled (/***/ "./src/...").
for (const bundle of bundles) {
  const ids = [...readFileSync(bundle, 'utf8').matchAll(/^\/\*\*\*\/ "([^"]+)"/gm)].map((m) => m[1]);
  const where = relative(root, bundle);
  if (ids.length === 0) fail(`${where}: no webpack module ids found, cannot tell what it holds`);
  const packages = new Set();
  for (const id of ids) {
    // "?31ff": a module webpack was told to ignore (the SDK's optional custom converters), empty.
    if (id.startsWith('./src/') || id.startsWith('?')) continue;
    // "./node_modules/<package>/...", or a path through a node_modules folder webpack reached by
    // a symbolic link ("../../elsewhere/node_modules/<package>/...").
    const inPackage = /^(?:\.\.?\/)+(?:[^?]*\/)?node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(id)?.[1];
    if (!inPackage) fail(`${where}: bundles ${id}, neither src/ nor a package`);
    else packages.add(inPackage);
  }
  for (const name of packages) {
    if (devDependencies.has(name)) fail(`${where}: bundles the devDependency ${name}`);
    else if (!existsSync(join(root, 'node_modules', name, 'package.json')))
      fail(`${where}: bundles ${name}, which the production install does not have`);
  }
  console.log(`${where}: ${ids.length} modules, from src/ and ${packages.size} production packages`);
}

// 4. Every module loads with the production dependencies alone.
let loaded = 0;
for (const file of modules) {
  try {
    await import(pathToFileURL(file).href);
    loaded++;
  } catch (error) {
    fail(`${relative(root, file)}: does not import: ${error.message.split('\n')[0]}`);
  }
}
console.log(
  `dist: ${imports} imports checked; ${loaded} of ${modules.length} modules imported with production dependencies only`,
);

if (failures.length > 0) {
  const SHOWN = 40;
  for (const line of failures.slice(0, SHOWN)) console.error(`  FAIL ${line}`);
  if (failures.length > SHOWN) console.error(`  ... and ${failures.length - SHOWN} more`);
  console.error(`check-dist: FAIL: ${failures.length} failure(s)`);
  process.exit(1);
}
// A module may have started something at import that keeps Node running; the check is over.
process.exit(0);
