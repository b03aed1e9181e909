// Where a worker's CPU went, from the .cpuprofile files `--cpu-prof` writes (BENCH_WORKER_NODE_ARGS,
// docs/performance.md "Profiling the worker"): self time by where the code comes from (a package,
// dispatch's own src/, Node's internals, the garbage collector, native code) and the busiest
// functions, each file (thread) on its own.
//
//   npx tsx bench/profile-summary.ts .dev/prof/*.cpuprofile
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Where a frame's code comes from: `@temporalio/worker`, `src/activities`, `node:internal`, `(garbage collector)`. */
function originOf(frame: ProfileNode['callFrame']): string {
  const { url, functionName } = frame;
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  if (url.startsWith('node:')) return 'node:internal';
  const own = /\/(src|bench|dev)\/([^/]+)/.exec(url);
  if (own) return `${own[1]}/${own[2]}`;
  if (/workflow-bundle|webpack/.test(url)) return 'workflow bundle';
  return url.replace(/^file:\/\//, '');
}

function summarize(file: string): string {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const totalUs = profile.endTime - profile.startTime;
  const byOrigin = new Map<string, number>();
  const byFunction = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const frame = byId.get(id)!.callFrame;
    const origin = originOf(frame);
    byOrigin.set(origin, (byOrigin.get(origin) ?? 0) + us);
    const name = `${frame.functionName || '(anonymous)'} ${origin}${frame.url ? `:${frame.lineNumber + 1}` : ''}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + us);
  }
  const idle = byOrigin.get('(idle)') ?? 0;
  const busy = totalUs - idle;
  const share = (us: number) => `${((100 * us) / Math.max(1, busy)).toFixed(1)} %`;
  const top = (m: Map<string, number>, n: number) =>
    [...m]
      .filter(([k]) => k !== '(idle)' && !k.startsWith('(idle)'))
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, us]) => `  ${share(us).padStart(7)}  ${(us / 1000).toFixed(0).padStart(7)} ms  ${k}`);
  return [
    `${basename(file)}: ${(totalUs / 1e6).toFixed(1)} s profiled, busy ${(busy / 1e6).toFixed(1)} s (${((100 * busy) / totalUs).toFixed(0)} %)`,
    'self time by origin (share of busy):',
    ...top(byOrigin, 15),
    'busiest functions:',
    ...top(byFunction, 20),
  ].join('\n');
}

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: tsx bench/profile-summary.ts <file.cpuprofile>...');
  process.exit(2);
}
console.log(files.map(summarize).join('\n\n'));
