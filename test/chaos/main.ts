// npm run test:chaos -- --seed N --jobs M: M job lifecycles (plain and Kueue mode) on a stack of the
// run's own, with two workers per mode, while the nemesis applies the seed's fault schedule; then,
// once everything has settled, the checker judges the recorded calls and the final state. Prints
// its seed first (a seed replays its schedule), progress while it runs, and a report at the end;
// writes the whole record to .dev/chaos/<seed>-<time>/. Exits 1 on any violation.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { repoRoot } from '../../dev/harness/paths.js';
import { startRequest } from '../support/requests.js';
import { check, RECORD_ONLY, type CheckReport, type Violation } from './checker.js';
import type { CallRecord, FaultRecord, LifecycleRecord, RunHistory } from './history.js';
import { runLifecycle } from './lifecycle.js';
import { Nemesis } from './nemesis.js';
import { checkLines, violationLine } from './report.js';
import { describeFault, planFaults, planLifecycles, type FaultKind } from './schedule.js';
import { readFinalState } from './snapshot.js';
import { CHAOS_CALL_MS, CHAOS_GATE_WINDOW_MS, startChaosStack } from './stack.js';

const { values } = parseArgs({
  options: {
    seed: { type: 'string' },
    jobs: { type: 'string', default: '40' },
    concurrency: { type: 'string', default: '8' },
    'fault-gap': { type: 'string', default: '5' },
    'settle-seconds': { type: 'string', default: '240' },
  },
});
const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed);
const jobs = Number(values.jobs);
const concurrency = Number(values.concurrency);
const faultGapMs = Number(values['fault-gap']) * 1000;
const settleMs = Number(values['settle-seconds']) * 1000;
for (const [name, value] of Object.entries({ seed, jobs, concurrency, faultGapMs, settleMs })) {
  if (!Number.isInteger(value) || value < 0) throw new Error(`--${name}: not a whole number: ${value}`);
}

const runDir = join(repoRoot, '.dev', 'chaos', `${seed}-${new Date().toISOString().replace(/[:.]/g, '-')}`);
mkdirSync(runDir, { recursive: true });
/** How long calls given up on may take to settle, more than the Temporal client's longest retry wait. */
const ABANDONED_SETTLE_MS = 10_000;
const t0 = Date.now();
const log = (line: string) => process.stdout.write(`[chaos ${((Date.now() - t0) / 1000).toFixed(1).padStart(6)} s] ${line}\n`);
log(`seed ${seed}, ${jobs} lifecycles, ${concurrency} at once, a fault every ~${faultGapMs / 1000} s; record in ${runDir}`);
log(`replay: npm run test:chaos -- --seed ${seed} --jobs ${jobs} --concurrency ${concurrency} --fault-gap ${faultGapMs / 1000}`);

async function main(): Promise<number> {
  const stateDir = mkdtempSync(join(tmpdir(), `dispatch-chaos-${seed}-`));
  const workersFrom = Date.now();
  const stack = await startChaosStack({ stateDir, logDir: join(runDir, 'logs'), log });
  const workersStarted = { from: workersFrom, to: Date.now() };
  const plans = planLifecycles(seed, jobs);
  // More faults than the run can use: the schedule is cut where the lifecycles end.
  const faults = planFaults(seed, { count: 100_000, meanGapMs: faultGapMs, workers: stack.workers.length });
  const calls: CallRecord[] = [];
  const lifecycles: LifecycleRecord[] = [];
  const nemesis = new Nemesis(stack, log);
  const done = new AbortController();
  const abandoned: Promise<unknown>[] = [];
  try {
    const runStart = Date.now();
    const nemesisRun = faultGapMs > 0 ? nemesis.run(faults, runStart, done.signal) : Promise.resolve();
    const progress = setInterval(() => log(`${lifecycles.length} of ${jobs} lifecycles done, ${nemesis.applied.length} faults applied (${nemesis.skipped.length} skipped: part not yet up), ${calls.length} calls`), 10_000);
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(concurrency, jobs) }, async () => {
        while (next < plans.length && !nemesis.failure) {
          const plan = plans[next++]!;
          lifecycles.push(
            await runLifecycle(
              {
                clients: stack.clients,
                kube: stack.kube,
                namespace: stack.namespace,
                callBoundMs: CHAOS_CALL_MS,
                callDeadlineMs: 10 * 60_000,
                request: (p) => startRequest({ runtime: stack.runtimes[p.runtime], spec: { nodes: 1, gpusPerNode: 1 } }),
                record: (call) => calls.push(call),
                cancellable: (signal, send) => stack.temporalClient.connection.withAbortSignal(signal, send),
                abandoned: (settling) => abandoned.push(settling),
              },
              plan,
            ),
          );
        }
      }),
    );
    clearInterval(progress);
    const lifecyclesSeconds = (Date.now() - runStart) / 1000;
    log(`every lifecycle ended in ${lifecyclesSeconds.toFixed(0)} s; the nemesis stops and brings every part back`);
    done.abort();
    await nemesisRun;
    if (nemesis.failure) throw nemesis.failure;

    // Settle: Find's InFlight lasts CallBound after an ErrOutcomeUnknown, and the garbage collector
    // and the controllers need their moment; then the checker, again until clean or the bound.
    const faultRecords: FaultRecord[] = nemesis.applied.map(({ fault, appliedAtMs, recoveredAtMs, hits }) => ({
      index: fault.index,
      kind: fault.kind,
      what: describeFault(fault),
      from: runStart + appliedAtMs,
      to: runStart + recoveredAtMs,
      ...(hits === undefined ? {} : { hits }),
    }));
    const history: RunHistory = { seed, lifecycles: [...lifecycles].sort((a, b) => a.plan.index - b.plan.index), calls, faults: faultRecords, workersStarted };
    const settleFrom = Date.now();
    await new Promise((resolve) => setTimeout(resolve, CHAOS_CALL_MS));
    // What the settling and the controller-manager restart excuse: violations seen once, gone later.
    const seenWhileSettling = new Map<string, Violation>();
    /** Reads the final state and checks it, again every `pauseMs` until it is clean or `until` has passed. */
    const checkUntil = async (until: number, pauseMs: number, onViolations: (report: CheckReport) => void = () => {}) => {
      for (;;) {
        const final = await readFinalState(stack, history.lifecycles, CHAOS_CALL_MS);
        const report = check(history, final, { callBoundMs: CHAOS_CALL_MS, gateWindowMs: CHAOS_GATE_WINDOW_MS });
        for (const v of report.violations) seenWhileSettling.set(violationLine(v), v);
        // Violations of the record alone stay whatever the cluster does: no use waiting for them.
        if (report.violations.every((v) => RECORD_ONLY.has(v.invariant)) || Date.now() > until) return { final, report };
        onViolations(report);
        await new Promise((resolve) => setTimeout(resolve, pauseMs));
      }
    };
    let { final, report } = await checkUntil(settleFrom + settleMs, 10_000, (r) =>
      log(`settling: ${r.violations.length} violation(s) for now, e.g. ${r.violations[0]!.invariant}: ${r.violations[0]!.detail}`),
    );
    const settleSeconds = (Date.now() - settleFrom) / 1000;
    // Objects whose owners are all gone are the garbage collector's. Its graph holds only what its
    // watches delivered, and a watch can miss an object created as the API server was killed: one
    // restart of kube-controller-manager (whose collector lists everything afresh) tells a
    // collector that lost track (reported, not a violation) from anything else.
    let collectedAfterRestart: Violation[] = [];
    const left = () => new Set(report.violations.map(violationLine));
    const settled = [...seenWhileSettling].filter(([line]) => !left().has(line)).map(([, v]) => v);
    // Run for the collectible ones even beside others: those stay violations whatever the collector does.
    const collectible = report.violations.filter((v) => v.collectible);
    if (collectible.length > 0) {
      log(`${collectible.length} object(s) whose owners are gone are still there: kube-controller-manager restarted, its collector lists afresh`);
      const before = collectible;
      // Its log is written afresh by the new process: keep the old one's.
      const kcmLog = join(runDir, 'logs', 'cluster', 'kube-controller-manager.log');
      copyFileSync(kcmLog, kcmLog.replace(/\.log$/, '.before-restart.log'));
      await stack.cluster.controllerManager.kill();
      await stack.cluster.controllerManager.start();
      ({ final, report } = await checkUntil(Date.now() + 90_000, 5_000));
      const after = left();
      collectedAfterRestart = before.filter((v) => !after.has(violationLine(v)));
    }
    const summary = { ...summarize(history, nemesis, report, { lifecyclesSeconds, settleSeconds }), settled, collectedAfterRestart };
    writeFileSync(join(runDir, 'history.json'), JSON.stringify({ history, faults: nemesis.applied, final }, null, 1));
    writeFileSync(join(runDir, 'report.json'), JSON.stringify(summary, null, 2));
    printReport(summary);
    return report.violations.length === 0 ? 0 : 1;
  } finally {
    done.abort();
    if (abandoned.length > 0) {
      // Aborted, they settle at once, or within the client's longest retry wait (5 s, jittered).
      log(`${abandoned.length} call(s) given up on: letting them settle before the Temporal connection closes`);
      await Promise.race([Promise.allSettled(abandoned), new Promise((resolve) => setTimeout(resolve, ABANDONED_SETTLE_MS))]);
    }
    await stack.stop();
    // A lifecycle given up leaves its workflows' histories here: kept for whoever reads why.
    const gaveUp = lifecycles.some((l) => l.ended?.how === 'gave-up');
    if (gaveUp && existsSync(join(stateDir, 'temporal.db'))) copyFileSync(join(stateDir, 'temporal.db'), join(runDir, 'temporal.db'));
    rmSync(stateDir, { recursive: true, force: true });
  }
}

function summarize(history: RunHistory, nemesis: Nemesis, report: CheckReport, times: { lifecyclesSeconds: number; settleSeconds: number }) {
  const faultsByKind: Partial<Record<FaultKind | `proxy ${string}`, number>> = {};
  for (const { fault } of nemesis.applied) {
    const key = fault.proxy ? (`proxy ${fault.proxy.action}` as const) : fault.kind;
    faultsByKind[key] = (faultsByKind[key] ?? 0) + 1;
  }
  const answers: Record<string, number> = {};
  for (const call of history.calls) {
    const key = `${call.op} ${call.answer.ok ? 'ok' : call.answer.type}`;
    answers[key] = (answers[key] ?? 0) + 1;
  }
  const ended: Record<string, number> = {};
  for (const l of history.lifecycles) ended[l.ended?.how ?? 'sent every call'] = (ended[l.ended?.how ?? 'sent every call'] ?? 0) + 1;
  return {
    seed: history.seed,
    lifecycles: history.lifecycles.length,
    byMode: { plain: history.lifecycles.filter((l) => l.plan.mode === 'plain').length, kueue: history.lifecycles.filter((l) => l.plan.mode === 'kueue').length },
    ended,
    faults: nemesis.applied.length,
    faultsSkipped: nemesis.skipped.length,
    faultsByKind,
    proxyFaults: nemesis.applied.filter((a) => a.fault.proxy).length,
    proxyFaultsThatHit: nemesis.applied.filter((a) => (a.hits ?? 0) > 0).map((a) => `fault ${a.fault.index}: ${describeFault(a.fault)}, took ${a.hits}`),
    calls: history.calls.length,
    answers,
    report,
    ...times,
  };
}

function printReport(summary: ReturnType<typeof summarize> & { settled: Violation[]; collectedAfterRestart: Violation[] }): void {
  const lines = [
    `seed ${summary.seed}: ${summary.lifecycles} lifecycles (${summary.byMode.plain} plain, ${summary.byMode.kueue} Kueue) in ${summary.lifecyclesSeconds.toFixed(0)} s, settled in ${summary.settleSeconds.toFixed(0)} s`,
    `lifecycles: ${Object.entries(summary.ended).map(([k, v]) => `${v} ${k}`).join(', ')}`,
    `faults: ${summary.faults} (${Object.entries(summary.faultsByKind).map(([k, v]) => `${v} ${k}`).join(', ')}); proxy faults that took a request: ${summary.proxyFaultsThatHit.length} of ${summary.proxyFaults}`,
    ...summary.proxyFaultsThatHit.map((line) => `  ${line}`),
    `calls: ${summary.calls} (${Object.entries(summary.answers).sort().map(([k, v]) => `${v} ${k}`).join(', ')})`,
    ...checkLines(summary.report, summary.lifecycles),
    `excused by the settle loop (seen after CallBound, gone by the end): ${summary.settled.length}`,
    ...summary.settled.map(violationLine),
    `collected only after kube-controller-manager was restarted (its collector had lost track; not violations): ${summary.collectedAfterRestart.length}`,
    ...summary.collectedAfterRestart.map(violationLine),
  ];
  for (const line of lines) log(line);
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    log(`the run failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(2);
  },
);
