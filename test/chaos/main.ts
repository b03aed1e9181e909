// npm run test:chaos -- --seed N --jobs M: M job lifecycles (plain and Kueue mode) on a stack of the
// run's own, with two workers per mode, while the nemesis applies the seed's fault schedule; then,
// once everything has settled, the checker judges the recorded calls and the final state. Prints
// its seed first (a seed replays its schedule), progress while it runs, and a report at the end;
// writes the whole record to .dev/chaos/<seed>-<time>/. Exits 1 on any violation.
//
// --multikueue: the same on a MultiKueue stack (stack.ts): a manager and one worker cluster, the
// workers (Kueue mode) reaching the worker cluster through a fault proxy of its own; the schedule
// adds the worker cluster's faults (its API server and Kueue restarted, its proxy's faults) and a
// failing job's shape; the checker also requires each job left to run to have run on the worker
// cluster, and, after a cleanup (every TrainJob left stopped), both clusters to hold nothing of the
// run's namespace within a bound (cluster-audit.ts). docs/reliability.md, docs/multikueue.md.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { repoRoot } from '../../dev/harness/paths.js';
import { startRequest } from '../support/requests.js';
import { BROKEN, type Broken } from './broken-worker.js';
import { check, RECORD_ONLY, type CheckReport, type JudgeOptions, type Violation } from './checker.js';
import { workersStart } from './justify.js';
import type { CallRecord, FaultRecord, LifecycleRecord, RunHistory } from './history.js';
import { runLifecycle } from './lifecycle.js';
import { Nemesis } from './nemesis.js';
import { probeFigures, probeLine, refusalLines, refusalTable, type ProbeRun } from './refusals.js';
import { checkLines, violationLine } from './report.js';
import { describeFault, FAULT_WEIGHTS, MULTIKUEUE_FAULT_WEIGHTS, MULTIKUEUE_FIRST_FAULTS, planFaults, planLifecycles, type FaultKind } from './schedule.js';
import { readFinalState } from './snapshot.js';
import { CHAOS_CALL_MS, CHAOS_FAIL_EXIT_CODE, startChaosStack, type ChaosStack } from './stack.js';
import { cleanUpAndAudit, CLEANUP_BOUND_MS, type CleanupResult } from './cleanup.js';
import { mergeAudit } from './cluster-audit.js';
import { MultiKueueNames } from '../../dev/harness/multikueue.js';
import { CHAOS_WINDOWS } from './windows.js';

const { values } = parseArgs({
  options: {
    seed: { type: 'string' },
    jobs: { type: 'string', default: '40' },
    concurrency: { type: 'string', default: '8' },
    'fault-gap': { type: 'string', default: '5' },
    'settle-seconds': { type: 'string', default: '240' },
    // The lifecycles' time budget; default 120 s + 120 s per ⌈jobs / concurrency⌉ (budgetFor).
    'budget-seconds': { type: 'string' },
    // Workers broken on purpose (broken-worker.ts), to see the checker fail a wrong product.
    broken: { type: 'string' },
    // A manager and one MultiKueue worker cluster, with the worker cluster's faults.
    multikueue: { type: 'boolean', default: false },
  },
});
const multiKueue = values.multikueue === true;
const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed);
const jobs = Number(values.jobs);
const concurrency = Number(values.concurrency);
const faultGapMs = Number(values['fault-gap']) * 1000;
const settleMs = Number(values['settle-seconds']) * 1000;
/**
 * The lifecycles' budget: a lifecycle took 53-57 s in the runs so far (the short schedule, 24 at 6
 * at once, in 213 s; the long run, 1,000 at 16 at once, in 2,773-3,596 s), so 120 s for each round
 * of `concurrency` lifecycles is about twice that, plus 120 s for the first preflights and the last
 * Watch.
 */
const budgetFor = (lifecycles: number, atOnce: number) => (120 + 120 * Math.ceil(lifecycles / Math.max(1, atOnce))) * 1000;
const budgetMs = values['budget-seconds'] === undefined ? budgetFor(jobs, concurrency) : Number(values['budget-seconds']) * 1000;
for (const [name, value] of Object.entries({ seed, jobs, concurrency, faultGapMs, settleMs, budgetMs })) {
  if (!Number.isInteger(value) || value < 0) throw new Error(`--${name}: not a whole number: ${value}`);
}
if (values.broken !== undefined && !(BROKEN as readonly string[]).includes(values.broken)) throw new Error(`--broken: one of ${BROKEN.join(', ')}, not ${values.broken}`);
const broken = values.broken as Broken | undefined;
/** After the lifecycles: CallBound, the settle loop, the collector's restart (90 s), the MultiKueue cleanup (its Stops, 60 s, and its bound), the report and the stack's stop (60 s). */
const afterLifecyclesMs = CHAOS_CALL_MS + settleMs + 90_000 + (multiKueue ? 60_000 + CLEANUP_BOUND_MS : 0) + 60_000;

const runDir = join(repoRoot, '.dev', 'chaos', `${seed}-${new Date().toISOString().replace(/[:.]/g, '-')}`);
mkdirSync(runDir, { recursive: true });
/** How long calls given up on may take to settle, more than the Temporal client's longest retry wait. */
const ABANDONED_SETTLE_MS = 10_000;
const t0 = Date.now();
const log = (line: string) => process.stdout.write(`[chaos ${((Date.now() - t0) / 1000).toFixed(1).padStart(6)} s] ${line}\n`);
log(`seed ${seed}, ${jobs} lifecycles, ${concurrency} at once, a fault every ~${faultGapMs / 1000} s${multiKueue ? ', MultiKueue (a manager and one worker cluster)' : ''}; record in ${runDir}`);
log(`replay: npm run test:chaos -- --seed ${seed} --jobs ${jobs} --concurrency ${concurrency} --fault-gap ${faultGapMs / 1000}${multiKueue ? ' --multikueue' : ''}`);
log(`budget: the lifecycles ${budgetMs / 1000} s from when the stack is up, the whole run ${(budgetMs + afterLifecyclesMs) / 1000} s from then${broken ? `; workers broken on purpose: ${broken}` : ''}`);

async function main(): Promise<number> {
  const stateDir = mkdtempSync(join(tmpdir(), `dispatch-chaos-${seed}-`));
  const workersFrom = Date.now();
  const stack = await startChaosStack({ stateDir, logDir: join(runDir, 'logs'), log, multiKueue, ...(broken ? { broken } : {}) });
  const workersStarted = { from: workersFrom, to: Date.now() };
  // The whole run's bound: past it, whatever it waits for, the run gives up (its servers die with it).
  const overall = setTimeout(() => {
    log(`VIOLATION run-within-budget: the run outran its whole bound of ${(budgetMs + afterLifecyclesMs) / 1000} s from when the stack was up; giving up (record in ${runDir})`);
    process.exit(1);
  }, budgetMs + afterLifecyclesMs);
  overall.unref();
  const plans = planLifecycles(seed, jobs, { multiKueue });
  // More faults than the run can use: the schedule is cut where the lifecycles end.
  const faults = planFaults(seed, { count: 100_000, meanGapMs: faultGapMs, workers: stack.workers.length, weights: multiKueue ? MULTIKUEUE_FAULT_WEIGHTS : FAULT_WEIGHTS, ...(multiKueue ? { first: MULTIKUEUE_FIRST_FAULTS } : {}) });
  const calls: CallRecord[] = [];
  const lifecycles: LifecycleRecord[] = [];
  const nemesis = new Nemesis(stack, log);
  const done = new AbortController();
  const outOfBudget = new AbortController();
  const abandoned: Promise<unknown>[] = [];
  try {
    const runStart = Date.now();
    let exceededAt: number | undefined;
    const budgetTimer = setTimeout(() => {
      exceededAt = Date.now();
      log(`VIOLATION run-within-budget: the lifecycles outran their budget of ${budgetMs / 1000} s (${lifecycles.length} of ${jobs} done); every call still unanswered is given up, no lifecycle is begun`);
      outOfBudget.abort();
    }, budgetMs);
    const nemesisRun = faultGapMs > 0 ? nemesis.run(faults, runStart, done.signal) : Promise.resolve();
    const progress = setInterval(() => log(`${lifecycles.length} of ${jobs} lifecycles done, ${nemesis.applied.length} faults applied (${nemesis.skipped.length} skipped: part not yet up), ${calls.length} calls`), 10_000);
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(concurrency, jobs) }, async () => {
        while (next < plans.length && !nemesis.failure && !outOfBudget.signal.aborted) {
          const plan = plans[next++]!;
          lifecycles.push(
            await runLifecycle(
              {
                clients: stack.clients,
                kube: stack.kube,
                namespace: stack.namespace,
                callBoundMs: CHAOS_CALL_MS,
                callDeadlineMs: 10 * 60_000,
                outOfBudget: outOfBudget.signal,
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
    clearTimeout(budgetTimer);
    const ranTo = Date.now();
    const lifecyclesSeconds = (ranTo - runStart) / 1000;
    log(`every lifecycle ended in ${lifecyclesSeconds.toFixed(0)} s; the nemesis stops and brings every part back`);
    done.abort();
    await nemesisRun;
    if (nemesis.failure) throw nemesis.failure;

    // Settle: Find's InFlight lasts CallBound after an ErrOutcomeUnknown, and the garbage collector
    // and the controllers need their moment; then the checker, again until clean or the bound.
    // A proxy fault touched only what ran from its first request to its last one's end; any other, from its part going down to its return.
    const faultRecords: FaultRecord[] = nemesis.applied.map(({ fault, appliedAtMs, recoveredAtMs, hits, hitFromMs, hitToMs }) => ({
      index: fault.index,
      kind: fault.kind,
      what: describeFault(fault),
      from: runStart + (hitFromMs ?? appliedAtMs),
      to: runStart + (hitToMs ?? recoveredAtMs),
      ...(hits === undefined ? {} : { hits }),
      ...(fault.kind === 'worker-kill' ? { mode: stack.workers[fault.worker ?? 0]!.mode } : {}),
    }));
    const history: RunHistory = {
      seed,
      lifecycles: [...lifecycles].sort((a, b) => a.plan.index - b.plan.index),
      calls,
      faults: faultRecords,
      workersStarted,
      ran: { from: runStart, to: ranTo },
      budget: { ms: budgetMs, ...(exceededAt === undefined ? {} : { exceededAt }) },
      ...(multiKueue ? { multiKueue: { workerClusters: [...(JUDGE.workerClusters ?? [])], failExitCode: CHAOS_FAIL_EXIT_CODE } } : {}),
    };
    if (exceededAt !== undefined) log(`${jobs - lifecycles.length} lifecycle(s) never begun for want of time`);
    const settleFrom = Date.now();
    await new Promise((resolve) => setTimeout(resolve, CHAOS_CALL_MS));
    // What the settling and the controller-manager restart excuse: violations seen once, gone later.
    const seenWhileSettling = new Map<string, Violation>();
    /** Reads the final state and checks it, again every `pauseMs` until it is clean or `until` has passed. */
    const checkUntil = async (until: number, pauseMs: number, onViolations: (report: CheckReport) => void = () => {}) => {
      for (;;) {
        const final = await readFinalState(stack, history.lifecycles, CHAOS_CALL_MS);
        const report = check(history, final, JUDGE);
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
    // MultiKueue: every TrainJob left stopped, then both clusters audited until clean or the bound.
    let cleanup: CleanupResult | undefined;
    if (multiKueue) {
      cleanup = await cleanUpAndAudit(stack, history.lifecycles, final, { probeBoundMs: JUDGE.windows.probeBoundMs, log });
      mergeAudit(report, cleanup.audit, history.lifecycles.length);
    }
    const refusals = { ...refusalTable(history, report, JUDGE), probes: probeFigures(await probeRuns(stack), [...faultRecords, workersStart(workersStarted)], JUDGE) };
    const cleanupLine = cleanup && {
      stopped: cleanup.stopped,
      unstopped: cleanup.unstopped,
      cleanSeconds: cleanup.audit.violations.length === 0 ? cleanup.tookMs / 1000 : undefined,
      left: cleanup.state.clusters.map((c) => `${c.cluster}: ${c.trainJobs.length} TrainJobs, ${c.copies.length} copies, ${c.workloads.length} Workloads`),
    };
    const summary = { ...summarize(history, nemesis, report, { lifecyclesSeconds, settleSeconds }), settled, collectedAfterRestart, refusals, ...(cleanupLine ? { cleanup: cleanupLine } : {}) };
    writeFileSync(join(runDir, 'history.json'), JSON.stringify({ history, faults: nemesis.applied, final, ...(cleanup ? { cleanup: cleanup.state } : {}) }, null, 1));
    writeFileSync(join(runDir, 'report.json'), JSON.stringify(summary, null, 2));
    writeFileSync(join(runDir, 'refusals.json'), JSON.stringify(refusals, null, 2));
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

const JUDGE: JudgeOptions = {
  callBoundMs: CHAOS_CALL_MS,
  windows: CHAOS_WINDOWS,
  ...(multiKueue ? { workerClusters: [MultiKueueNames.worker(1)], failExitCode: CHAOS_FAIL_EXIT_CODE } : {}),
};

/** The run's preflight probes (ProbeBackend workflows of its task queues that completed, started to closed): the measurement behind windows.ts's probeMs. */
async function probeRuns(stack: ChaosStack): Promise<ProbeRun[]> {
  const runs: ProbeRun[] = [];
  for (const mode of stack.modes) {
    const query = `TaskQueue = '${stack.configs[mode]!.temporal.taskQueue}' AND WorkflowType = 'ProbeBackend' AND ExecutionStatus = 'Completed'`;
    try {
      for await (const w of stack.temporalClient.workflow.list({ query })) if (w.closeTime) runs.push({ mode, from: w.startTime.getTime(), to: w.closeTime.getTime() });
    } catch (error) {
      log(`the probes of ${mode} not read: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return runs;
}

function summarize(history: RunHistory, nemesis: Nemesis, report: CheckReport, times: { lifecyclesSeconds: number; settleSeconds: number }) {
  const faultsByKind: Partial<Record<FaultKind | `${FaultKind} ${string}`, number>> = {};
  for (const { fault } of nemesis.applied) {
    const key = fault.proxy ? (`${fault.kind} ${fault.proxy.action}` as const) : fault.kind;
    faultsByKind[key] = (faultsByKind[key] ?? 0) + 1;
  }
  const answers: Record<string, number> = {};
  for (const call of history.calls) {
    const key = `${call.op} ${call.answer.ok ? 'ok' : call.answer.type}`;
    answers[key] = (answers[key] ?? 0) + 1;
  }
  const ended: Record<string, number> = {};
  for (const l of history.lifecycles) ended[l.ended?.how ?? 'sent every call'] = (ended[l.ended?.how ?? 'sent every call'] ?? 0) + 1;
  const shapes: Record<string, number> = {};
  for (const l of history.lifecycles) shapes[l.plan.shape] = (shapes[l.plan.shape] ?? 0) + 1;
  return {
    seed: history.seed,
    lifecycles: history.lifecycles.length,
    shapes,
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

interface CleanupLine {
  stopped: number;
  unstopped: string[];
  cleanSeconds: number | undefined;
  left: string[];
}

function printReport(summary: ReturnType<typeof summarize> & { settled: Violation[]; collectedAfterRestart: Violation[]; refusals: ReturnType<typeof refusalTable> & { probes: ReturnType<typeof probeFigures> }; cleanup?: CleanupLine }): void {
  const { cleanup } = summary;
  const lines = [
    `seed ${summary.seed}: ${summary.lifecycles} lifecycles (${summary.byMode.plain} plain, ${summary.byMode.kueue} Kueue${multiKueue ? ', MultiKueue' : ''}) in ${summary.lifecyclesSeconds.toFixed(0)} s, settled in ${summary.settleSeconds.toFixed(0)} s`,
    `shapes: ${Object.entries(summary.shapes).map(([k, v]) => `${v} ${k}`).join(', ')}`,
    `lifecycles: ${Object.entries(summary.ended).map(([k, v]) => `${v} ${k}`).join(', ')}`,
    `faults: ${summary.faults} (${Object.entries(summary.faultsByKind).map(([k, v]) => `${v} ${k}`).join(', ')}); proxy faults that took a request: ${summary.proxyFaultsThatHit.length} of ${summary.proxyFaults}`,
    ...summary.proxyFaultsThatHit.map((line) => `  ${line}`),
    `calls: ${summary.calls} (${Object.entries(summary.answers).sort().map(([k, v]) => `${v} ${k}`).join(', ')})`,
    ...checkLines(summary.report, summary.lifecycles),
    ...refusalLines(summary.refusals),
    probeLine(summary.refusals.probes),
    `excused by the settle loop (seen after CallBound, gone by the end): ${summary.settled.length}`,
    ...summary.settled.map(violationLine),
    `collected only after kube-controller-manager was restarted (its collector had lost track; not violations): ${summary.collectedAfterRestart.length}`,
    ...summary.collectedAfterRestart.map(violationLine),
    ...(cleanup
      ? [
          `cleanup: ${cleanup.stopped} TrainJob(s) stopped${cleanup.unstopped.length ? `, ${cleanup.unstopped.length} not: ${cleanup.unstopped.join('; ')}` : ''}; ${cleanup.cleanSeconds === undefined ? `not clean within ${CLEANUP_BOUND_MS / 1000} s` : `both clusters clean ${cleanup.cleanSeconds.toFixed(0)} s after the cleanup began`} (last read: ${cleanup.left.join('; ')})`,
        ]
      : []),
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
