// npm run dev:up [-- --temporal postgres] [-- --multikueue[=N]] | dev:down | dev:status: a local Temporal dev server (UI on;
// with `--temporal postgres`, temporal-server on PostgreSQL as docker-compose.yml runs it) and a local cluster
// (etcd, kube-apiserver, kube-controller-manager, kube-scheduler, KWOK's simulated nodes, the real
// JobSet, Trainer and Kueue controllers with their webhooks, the sample runtimes and Kueue queues),
// running in the background. `. .dev/env` points a shell, the product or the temporal CLI at them.
// With `--multikueue` (N worker clusters, default 1; docs/multikueue.md) that cluster is the
// MultiKueue manager of N more, each its own complete cluster.
import { relative } from 'node:path';
import { devDown, devHealth, devPaths, devUp, readDevState, workerKubeconfigVar, type DevState } from '../dev/harness/dev-stack.js';
import { repoRoot } from '../dev/harness/paths.js';
import type { MultiKueueOption, TemporalKind } from '../dev/harness/stack.js';

const rel = (p: string) => relative(process.cwd(), p) || '.';

function describe(state: DevState): string {
  const { kube, temporal } = state.info;
  const pids = Object.entries(state.servers)
    .map(([name, s]) => `${name} ${s.pid}`)
    .join(', ');
  return [
    `  Temporal     ${temporal.address} (namespace ${temporal.namespace})${temporal.postgres ? ', temporal-server on PostgreSQL' : ''}`,
    ...(temporal.postgres ? [`  PostgreSQL   ${temporal.postgres.host}:${temporal.postgres.port} (user ${temporal.postgres.user}, data ${temporal.postgres.dataDir})`] : []),
    `  Temporal UI  ${temporal.uiUrl ?? '(off)'}`,
    `  API server   ${kube.server} (namespace ${kube.namespace})`,
    `  kubeconfig   ${rel(kube.kubeconfig)} (admin); ${rel(kube.restrictedKubeconfig)} (restricted)`,
    ...(state.info.workers ?? []).map(
      (w, i) => `  ${w.name.padEnd(12)} ${w.kube.server} (kubeconfig ${rel(w.kube.kubeconfig)}, $${workerKubeconfigVar(i + 1)}; MultiKueue AdmissionCheck ${state.info.multiKueue?.admissionCheck ?? ''})`,
    ),
    `  samples      ${state.info.samples.join(', ')}`,
    `  logs         ${rel(state.info.logDir)}/`,
    `  pids         ${pids}`,
    `  env          . ${rel(devPaths.env)}`,
  ].join('\n');
}

/** `--temporal postgres` (or `--temporal=postgres`): Temporal on PostgreSQL instead of the dev server. */
function temporalKind(args: string[]): TemporalKind {
  const at = args.findIndex((a) => a === '--temporal' || a.startsWith('--temporal='));
  const value = at < 0 ? 'dev' : args[at]!.includes('=') ? args[at]!.split('=')[1] : args[at + 1];
  if (value !== 'dev' && value !== 'postgres') throw new Error(`--temporal takes dev or postgres, not ${value ?? 'nothing'}`);
  return value;
}

/** `--multikueue` (one worker cluster) or `--multikueue=N`; absent: one cluster. */
function multiKueue(args: string[]): MultiKueueOption | undefined {
  const arg = args.find((a) => a === '--multikueue' || a.startsWith('--multikueue='));
  if (arg === undefined) return undefined;
  const workers = arg.includes('=') ? Number(arg.split('=')[1]) : 1;
  if (!Number.isInteger(workers) || workers < 1 || workers > 3) throw new Error(`--multikueue takes 1 to 3 worker clusters, not ${arg.split('=')[1]}`);
  return { workers };
}

async function up(): Promise<number> {
  const args = process.argv.slice(3);
  const mk = multiKueue(args);
  const result = await devUp({ temporal: temporalKind(args), ...(mk ? { multiKueue: mk } : {}) });
  if (result.already) {
    console.log(`dev stack already up and healthy (since ${result.state.startedAt}):\n${describe(result.state)}`);
    return 0;
  }
  if (result.replaced.length > 0) console.log(`stopped an unhealthy earlier stack (${result.replaced.join(', ')})`);
  const t = result.state.timings;
  console.log(
    `dev stack up in ${(t.total / 1000).toFixed(1)} s (etcd ${t.etcd} ms, kube-apiserver ${t.kubeApiserver} ms, ` +
      `CRDs ${t.crds} ms, kube-controller-manager ${t.kubeControllerManager} ms, scheduler and KWOK nodes ${t.nodes} ms, ` +
      `JobSet/Trainer/Kueue ${t.controllers} ms, Temporal ${t.temporal} ms):\n${describe(result.state)}`,
  );
  for (const w of result.state.info.workers ?? []) {
    const wt = w.timings;
    console.log(
      `  ${w.name} started after the manager, up in ${(Math.max(wt.nodes, wt.controllers) / 1000).toFixed(1)} s from its launch (etcd ${wt.etcd} ms, kube-apiserver ${wt.kubeApiserver} ms, ` +
        `CRDs ${wt.crds} ms, kube-controller-manager ${wt.kubeControllerManager} ms, scheduler and KWOK nodes ${wt.nodes} ms, JobSet/Trainer/Kueue ${wt.controllers} ms)`,
    );
  }
  return 0;
}

async function down(): Promise<number> {
  const stopped = await devDown();
  console.log(stopped.length > 0 ? `stopped ${stopped.join(', ')}` : 'dev stack was not running');
  return 0;
}

async function status(): Promise<number> {
  const state = readDevState();
  if (!state) {
    console.log('dev stack is not up (npm run dev:up starts it)');
    return 3;
  }
  const health = await devHealth(state);
  const line = (ok: boolean) => (ok ? 'running' : 'NOT RUNNING');
  console.log(`dev stack ${health.healthy ? 'up and healthy' : 'NOT healthy'} (started ${state.startedAt}):\n${describe(state)}`);
  for (const [name, ok] of Object.entries(health.processes)) console.log(`  ${name.padEnd(22)} ${line(ok)}`);
  console.log(`  ${'kube-apiserver /readyz'.padEnd(22)} ${health.kubeApiserverReady ? 'ok' : 'FAILING'}`);
  for (const [name, ok] of Object.entries(health.workerApiservers)) console.log(`  ${`${name} /readyz`.padEnd(22)} ${ok ? 'ok' : 'FAILING'}`);
  for (const [name, ok] of Object.entries(health.endpoints)) console.log(`  ${`${name} health`.padEnd(22)} ${ok ? 'ok' : 'FAILING'}`);
  console.log(`  ${'Temporal'.padEnd(22)} ${health.temporalReady ? 'ok' : 'FAILING'}`);
  if (!health.healthy) console.log(`logs: ${rel(state.info.logDir)}/; npm run dev:up restarts it`);
  return health.healthy ? 0 : 1;
}

const commands: Record<string, () => Promise<number>> = { up, down, status };
const command = commands[process.argv[2] ?? ''];
if (!command) {
  console.error('usage: tsx scripts/dev.ts up|down|status');
  process.exit(2);
}
process.chdir(repoRoot);
command().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`dev:${process.argv[2]} failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
