#!/usr/bin/env node
// Replays every recorded workflow history (<histories>/<set>/*.json, whatever sets are there)
// against the production workflow bundles, as the shipped worker runs them: the bundle loaded by
// path (`workflowBundle: { codePath }`, src/worker/workflow-code.ts), with the interceptors and
// sinks of the compiled worker (metricsWorkerOptions of dist/observability/interceptors.js), and,
// for the tracing bundle, OpenTelemetry's plugin as DISPATCH_TRACING adds it. Plain node, no tsx:
// every module comes from --root (a production install: package.json, node_modules, dist/), not
// from wherever this file lies.
//
//   node replay-corpus.mjs --histories <dir> [--root <dir>] [--code <dir>]
//                          [--bundle <file>] [--tracing-bundle <file>] [--self-check]
//
// --root   where package.json and node_modules are (default: the working directory)
// --code   the compiled modules the worker options come from (default: <root>/dist)
// --bundle, --tracing-bundle  the bundles to replay; with neither, <root>/dist/workflow-bundle.js
//          and <root>/dist/workflow-bundle-tracing.js
// --self-check  also replays one history altered to schedule an activity of another type, which
//          must fail with DeterminismViolationError: proof that this install detects nondeterminism
//
// The histories <histories>/builds.json gives to a recorded build only (the old branch of a
// retired patch, which this code no longer has) are left out: the unit replay test replays them
// against their build (test/unit/replay/builds.ts). Without builds.json, every history is replayed.
//
// Exits 1, naming each failing <set>/<file> and its error, if any history fails to replay, if
// there are no histories, or if the self-check's altered history replays.
/* global console, process, structuredClone */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({
  options: {
    histories: { type: 'string' },
    root: { type: 'string', default: process.cwd() },
    code: { type: 'string' },
    bundle: { type: 'string' },
    'tracing-bundle': { type: 'string' },
    'self-check': { type: 'boolean', default: false },
  },
});
if (!args.histories) {
  console.error('replay-corpus: --histories <dir> is required');
  process.exit(2);
}
const root = resolve(args.root);
const code = resolve(args.code ?? join(root, 'dist'));
const historiesDir = resolve(args.histories);
const fromRoot = createRequire(join(root, 'package.json'));
const importCode = (path) => import(pathToFileURL(join(code, path)).href);

const { DefaultLogger, Runtime, Worker } = fromRoot('@temporalio/worker');

// Both bundles carry their workflow interceptors, so the worker's own interceptors.workflowModules
// (OpenTelemetry's plugin adds one) are ignored with a warning, in production as here; other
// warnings are shown. Core's log of each failing workflow task is left out: the replay's results
// report the same failure, once, with the history's name.
const KNOWN_WARNING =
  'Ignoring WorkerOptions.interceptors.workflowModules because WorkerOptions.workflowBundle is set';
Runtime.install({
  logger: new DefaultLogger('WARN', ({ level, message }) => {
    if (!message.startsWith(KNOWN_WARNING)) console.error(`[${level}] ${message}`);
  }),
  telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'WARN' } } },
});

// Histories are protobuf's canonical JSON (what `temporal workflow show --output json` writes).
// @temporalio/common's historyFromJSON fails whenever npm installs protobufjs twice (its protojson
// checks `instanceof Type` against another copy), so this uses the protojson of the very copy
// @temporalio/proto's types were built with (as test/unit/replay/history-json.ts does).
const protoPath = fromRoot.resolve('@temporalio/proto');
const proto = fromRoot(protoPath);
const { patchProtobufRoot } = fromRoot('@temporalio/proto/lib/patch-protobuf-root');
const protojson = createRequire(protoPath)('protobufjs/ext/protojson');
const historyType = patchProtobufRoot(proto).lookupType('temporal.api.history.v1.History');

function parseHistory(json) {
  const history = protojson.fromJson(historyType, json, { ignoreUnknownFields: true });
  if (!history?.events?.length) throw new TypeError('not a workflow history: no events');
  return history;
}

/** The builds that replay a history, as <histories>/builds.json says: its own entry, else its set's (undefined: not said). */
function buildsOf(name) {
  const file = join(historiesDir, 'builds.json');
  if (!existsSync(file)) return undefined;
  const { sets = {}, files = {} } = JSON.parse(readFileSync(file, 'utf8'));
  return files[name] ?? sets[name.split('/')[0]];
}

/** Every <set>/<file>.json but the manifests, sorted, with its JSON text parsed. */
function readCorpus() {
  const sets = readdirSync(historiesDir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
  return sets.flatMap((set) =>
    readdirSync(join(historiesDir, set))
      .filter((file) => file.endsWith('.json') && file !== 'manifest.json')
      .sort()
      .map((file) => ({
        name: `${set}/${file}`,
        json: JSON.parse(readFileSync(join(historiesDir, set, file), 'utf8')),
      })),
  );
}

/** The production worker's options for a bundle (src/worker/dispatch-worker.ts, src/cli/worker-command.ts). */
async function workerOptions(codePath, tracing) {
  const { metricsWorkerOptions } = await importCode('observability/interceptors.js');
  const { createDispatchMetrics } = await importCode('observability/metrics.js');
  const options = { workflowBundle: { codePath }, ...metricsWorkerOptions(createDispatchMetrics(), false) };
  if (!tracing) return options;
  const { createTracing } = await importCode('observability/tracing.js');
  const { InMemorySpanExporter } = fromRoot('@opentelemetry/sdk-trace-base');
  const { plugin } = await createTracing({ exporter: new InMemorySpanExporter() });
  return { ...options, plugins: [plugin] };
}

/** An error in one line: a nondeterminism error's message from Core, else the first line. */
function brief(error) {
  const core = /message: "((?:[^"\\]|\\.)*)"/.exec(error.message)?.[1];
  return `${error.name}: ${core ?? error.message.split('\n')[0]}`;
}

/** Replays the histories; answers the failures, each {name, error} in one line. */
async function replay(options, histories, replayName) {
  const failures = [];
  const named = new Map(histories.map((h) => [h.name, h]));
  const results = Worker.runReplayHistories(
    { ...options, replayName },
    histories
      .map(({ name, json }) => {
        try {
          return { workflowId: name, history: parseHistory(json) };
        } catch (error) {
          failures.push({ name, error: `unreadable: ${error.message}` });
          named.delete(name);
          return undefined;
        }
      })
      .filter(Boolean),
  );
  for await (const result of results) {
    named.delete(result.workflowId);
    if (result.error) failures.push({ name: result.workflowId, error: brief(result.error) });
  }
  // The replay stops early if its worker does; a history without a result did not replay.
  for (const name of named.keys()) failures.push({ name, error: 'no replay result' });
  return failures;
}

/** A copy of the first history that schedules an activity, with that activity's type renamed. */
function alteredHistory(histories) {
  for (const { name, json } of histories) {
    const copy = structuredClone(json);
    const event = copy.events?.find((e) => e.activityTaskScheduledEventAttributes?.activityType?.name);
    if (!event) continue;
    const type = event.activityTaskScheduledEventAttributes.activityType;
    const was = type.name;
    type.name = `${was}Altered`;
    return { name: `${name} (activity ${was} renamed ${type.name})`, json: copy };
  }
  return undefined;
}

const bundles = [
  ...(args.bundle ? [{ path: resolve(args.bundle), tracing: false }] : []),
  ...(args['tracing-bundle'] ? [{ path: resolve(args['tracing-bundle']), tracing: true }] : []),
];
if (bundles.length === 0)
  bundles.push(
    { path: join(root, 'dist', 'workflow-bundle.js'), tracing: false },
    { path: join(root, 'dist', 'workflow-bundle-tracing.js'), tracing: true },
  );

const everyHistory = readCorpus();
const corpus = everyHistory.filter(({ name }) => buildsOf(name)?.includes('today') ?? true);
if (corpus.length < everyHistory.length)
  console.log(
    `replay: ${everyHistory.length - corpus.length} histories left to their recorded builds (builds.json): ` +
      everyHistory.filter((h) => !corpus.includes(h)).map((h) => h.name).join(', '),
  );
if (corpus.length === 0) {
  console.error(`replay-corpus: FAIL: no histories under ${historiesDir}`);
  process.exit(1);
}
const sets = [...new Set(corpus.map((h) => h.name.split('/')[0]))];
let failed = 0;
for (const { path, tracing } of bundles) {
  const label = `${relative(root, path) || path}${tracing ? ' (with tracing)' : ''}`;
  const started = Date.now();
  const failures = await replay(
    await workerOptions(path, tracing),
    corpus,
    tracing ? 'corpus-tracing' : 'corpus',
  );
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.log(
    `replay ${label}: ${corpus.length - failures.length} of ${corpus.length} histories ` +
      `(${sets.length} sets: ${sets.join(', ')}) replayed in ${seconds} s`,
  );
  for (const { name, error } of failures) console.error(`  FAIL ${name}: ${error}`);
  failed += failures.length;

  if (args['self-check']) {
    // Altered from a history that replayed, so that only the alteration can make it fail.
    const failedNames = new Set(failures.map((f) => f.name));
    const altered = alteredHistory(corpus.filter((h) => !failedNames.has(h.name)));
    const [failure] = altered
      ? await replay(await workerOptions(path, tracing), [altered], 'self-check')
      : [];
    if (!altered && failures.length > 0) {
      console.error('  self-check: skipped, no history that replayed schedules an activity to alter');
    } else if (!altered) {
      console.error('  FAIL self-check: no history schedules an activity to alter');
      failed++;
    } else if (!failure?.error.startsWith('DeterminismViolationError')) {
      console.error(
        `  FAIL self-check: ${altered.name} should fail with DeterminismViolationError, got: ${failure?.error ?? 'success'}`,
      );
      failed++;
    } else console.log(`  self-check: ${failure.name}: ${failure.error}`);
  }
}
if (failed > 0) {
  console.error(`replay-corpus: FAIL: ${failed} failure(s)`);
  process.exit(1);
}
