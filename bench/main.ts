// npm run bench: the cost of a Start on the real local stack, what Temporal adds on top, and how
// it scales (docs/performance.md). Prints one table, and writes every figure as JSON.
// Sizes come from BENCH_* variables (bench/settings.ts); benchmarks print, they assert nothing.
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, totalmem } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { DEFAULT_WORKER_TUNING } from '../src/worker/dispatch-worker.js';
import { startBenchEnv, temporalArgs, temporalDynamicConfig } from './env.js';
import { measureHistory } from './history.js';
import { measureKueue } from './kueue.js';
import { measureMultiKueue } from './multikueue.js';
import { measureLatency } from './latency.js';
import { measureOperations } from './operations.js';
import { measurePinned } from './pinned.js';
import { measureSdk } from './sdk.js';
import { benchSettings } from './settings.js';
import { table, type Row } from './stats.js';
import { measureThroughput } from './throughput.js';
import { measureWaiting } from './waiting.js';
import { measureWatching } from './watching.js';
import { measureWokenWatches } from './woken-watches.js';
import { workerNodeOptions } from './worker-handle.js';

const settings = benchSettings();
const machine = {
  cpus: `${availableParallelism()} x ${cpus()[0]?.model ?? 'unknown CPU'}`,
  memory: `${(totalmem() / 2 ** 30).toFixed(1)} GiB`,
  node: process.version,
  loadBefore: loadavg()
    .map((l) => l.toFixed(2))
    .join(' '),
};
const tuning = { ...DEFAULT_WORKER_TUNING, ...settings.tuning };
console.error(
  `[bench] ${JSON.stringify({ settings: { ...settings, sections: [...settings.sections] }, machine, tuning })}`,
);

const env = await startBenchEnv({
  tuning,
  worker: settings.worker,
  preload: settings.preload,
  // The multikueue section compares with a worker cluster beside the manager (bench/multikueue.ts).
  ...(settings.sections.has('multikueue') ? { multiKueue: { workers: 1 } } : {}),
});
const rows: Row[] = [];
const results: Record<string, unknown> = {};
try {
  const sections = [
    ['latency', measureLatency],
    ['throughput', measureThroughput],
    ['pinned', measurePinned],
    ['history', measureHistory],
    ['waiting', measureWaiting],
    ['operations', measureOperations],
    ['watching', measureWatching],
    ['woken', measureWokenWatches],
    ['kueue', measureKueue],
    ['sdk', measureSdk],
    ['multikueue', measureMultiKueue],
  ] as const;
  for (const [name, measure] of sections) {
    if (!settings.sections.has(name)) continue;
    console.error(`[bench] ${name} ...`);
    const t0 = performance.now();
    try {
      const { rows: more, result } = await measure(env, settings);
      rows.push(...more);
      results[name] = result;
      // Each section's rows as it ends, so a later section's failure loses nothing measured.
      console.error(table(more));
    } catch (error) {
      // A section that fails is reported, and the others still run.
      const message = error instanceof Error ? error.message : String(error);
      console.error(`[bench] ${name} FAILED: ${error instanceof Error ? (error.stack ?? message) : message}`);
      rows.push({ section: name, metric: 'FAILED', value: message.split('\n')[0]!.slice(0, 300) });
      results[name] = { failed: message };
    }
    console.error(`[bench] ${name} done in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  }
} finally {
  await env.close();
}

const out = settings.out ?? join(env.dir, 'results.json');
mkdirSync(dirname(out), { recursive: true });
const loadAfter = loadavg()
  .map((l) => l.toFixed(2))
  .join(' ');
writeFileSync(
  out,
  JSON.stringify(
    {
      settings: { ...settings, sections: [...settings.sections] },
      machine: { ...machine, loadAfter },
      tuning,
      results,
    },
    null,
    2,
  ),
);
console.log(table(rows));
console.log(
  `\nmachine: ${machine.cpus}, ${machine.memory}, Node ${machine.node}; load average before ${machine.loadBefore}, after ${loadAfter}`,
);
console.log(
  `worker tuning: ${JSON.stringify(tuning)}; worker NODE_OPTIONS: ${workerNodeOptions}`,
);
console.log(
  `Temporal dynamic config: ${Object.keys(temporalDynamicConfig).length > 0 ? JSON.stringify(temporalDynamicConfig) : "the dev server's own"}${temporalArgs.length > 0 ? `, then ${temporalArgs.join(' ')}` : ''}`,
);
console.log(`figures as JSON in ${relative(process.cwd(), out)}`);
if (rows.some((r) => r.metric === 'FAILED')) process.exitCode = 1;
