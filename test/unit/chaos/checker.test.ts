// The chaos checker on recorded runs made by hand: a run where every answer is the one its shape
// intends and matches the cluster has no violation; each way a run can go wrong is named by its
// invariant; a refusal passes only with the rule and the fault (or evidence) that justify it.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { check, INVARIANTS, type CheckReport } from '../../chaos/checker.js';
import { FAULT_RULES } from '../../chaos/justify.js';
import type { Answer, CallRecord, FaultRecord, FinalObject, FinalState, LifecycleRecord, RunHistory } from '../../chaos/history.js';
import { SHAPES, type LifecyclePlan, type Operation, type Shape } from '../../chaos/schedule.js';
import { CHAOS_WINDOWS } from '../../chaos/windows.js';

const NS = 'chaos';
const CALL_MS = 30_000;
const OPTIONS = { callBoundMs: CALL_MS, windows: CHAOS_WINDOWS };
/** Calls of one lifecycle are this far apart, so that a lifecycle spans a few seconds. */
const STEP_MS = 1_000;

interface Made {
  history: RunHistory;
  final: FinalState;
}

const obj = (name: string, uid: string, owners: string[] = [], extra: Partial<FinalObject> = {}): FinalObject => ({ name, uid, owners, deleting: false, ...extra });
const iso = (ms: number) => new Date(ms).toISOString();

/** A run where everything went right: each lifecycle's calls answered as its shape intends, the cluster as they say. */
function cleanRun(shapes: Shape[], options: { duplicated?: Operation[] } = {}): Made {
  const lifecycles: LifecycleRecord[] = [];
  const calls: CallRecord[] = [];
  const final: FinalState = { trainJobs: [], copies: [], workloads: [], jobSets: [], jobs: [], pods: [], running: [], finds: {} };
  shapes.forEach((shape, index) => {
    let t = 1_000_000 + index * 100_000;
    const plan: LifecyclePlan = { index, mode: index % 2 ? 'kueue' : 'plain', shape, runtime: 'short', duplicated: options.duplicated ?? [], pauseMs: 0 };
    const name = `job-${index}`;
    const uid = `uid-${index}`;
    const ref = { namespace: NS, name, uid };
    const stops = shape.includes('stop');
    const fails = shape === 'run-fail';
    lifecycles.push({ plan, jobId: `j${index}`, submission: 1, name });
    const answer = (op: Operation, value: unknown, seen: CallRecord['seen']) => {
      for (let copy = 0; copy < (plan.duplicated.includes(op) ? 2 : 1); copy++) {
        calls.push({ job: index, op, copy, try: 1, invokedAt: (t += STEP_MS), answeredAt: (t += STEP_MS), answer: { ok: true, value }, seen });
      }
    };
    answer('start', { ref: `${NS}/${name}`, uid, namespace: NS, name, runtimeCopy: name, mode: plan.mode }, { uid });
    for (const op of SHAPES[shape]) {
      if (op === 'watch') continue;
      const phase = { open: 'Running', hold: 'Held', release: 'Running', stop: 'Absent' }[op];
      answer(op, { ref, phase, held: op === 'hold', reasons: [] }, op === 'stop' ? {} : { uid });
    }
    // Watch, sent beside the others, answers last: the job finished, or was stopped.
    const ended = fails ? { ref, phase: 'Failed', reason: 'Failed', message: '', exitCode: 3, finishedAt: iso(t) } : { ref, phase: 'Succeeded', reason: 'Complete', message: '', finishedAt: iso(t) };
    answer('watch', stops ? { ref, phase: 'Absent', reason: 'Deleted', message: '', finishedAt: iso(t) } : ended, stops ? {} : { uid, finished: fails ? 'Failed' : 'Complete' });
    if (stops) {
      final.finds[index] = { state: 'Absent' };
      return;
    }
    final.trainJobs.push(obj(name, uid, [], { conditions: [fails ? 'Failed' : 'Complete'] }));
    final.copies.push(obj(name, `copy-${index}`, [uid]));
    final.jobSets.push(obj(name, `js-${index}`, [uid]));
    final.jobs.push(obj(`${name}-node-0`, `job-${index}`, [`js-${index}`]));
    final.pods.push(obj(`${name}-node-0-0`, `pod-${index}`, [`job-${index}`]));
    if (plan.mode === 'kueue') final.workloads.push(obj(`trainjob-${name}`, `wl-${index}`, [uid]));
    final.finds[index] = { state: 'Present', ref, attemptToken: 't' };
  });
  return { history: { seed: 1, lifecycles, calls, faults: [] }, final };
}

const run = (made: Made): CheckReport => check(made.history, made.final, OPTIONS);
/** A rule's window for a call of `mode`: how long after its fault's part was back it still accepts a refusal. */
const windowOf = (id: string, mode: 'plain' | 'kueue') => FAULT_RULES.find((r) => r.id === id)!.windowMs(OPTIONS, mode);
const invariantsOf = (made: Made) => [...new Set(run(made).violations.map((v) => v.invariant))].sort();
const shapes = fc.array(fc.constantFrom(...(Object.keys(SHAPES) as Shape[])), { minLength: 1, maxLength: 12 });
const ops = fc.subarray(['start', 'open', 'hold', 'release', 'stop', 'watch'] as Operation[]);

const callsOf = (made: Made, job: number, op: Operation) => made.history.calls.filter((c) => c.job === job && c.op === op);
const refuse = (call: CallRecord, answer: Extract<Answer, { ok: false }>) => {
  call.answer = answer;
  delete call.seen;
};
/** A fault of `kind` over [from, to]. */
const fault = (kind: FaultRecord['kind'], from: number, to: number, hits?: number): FaultRecord => ({ index: 7, kind, what: `${kind}, down 2.0 s`, from, to, ...(hits === undefined ? {} : { hits }) });
/** Removes what a lifecycle's Start left on the cluster: a Start that never answered a ref. */
const nothingOnTheCluster = (made: Made, job: number) => {
  const name = `job-${job}`;
  const uid = `uid-${job}`;
  made.final.trainJobs = made.final.trainJobs.filter((o) => o.uid !== uid);
  made.final.copies = made.final.copies.filter((o) => o.name !== name);
  made.final.workloads = made.final.workloads.filter((o) => !o.owners.includes(uid));
  made.final.jobSets = made.final.jobSets.filter((o) => !o.owners.includes(uid));
  made.final.jobs = made.final.jobs.filter((o) => o.owners[0] !== `js-${job}`);
  made.final.pods = made.final.pods.filter((o) => o.owners[0] !== `job-${job}`);
  made.final.finds[job] = { state: 'Absent' };
};
/** The lifecycle's Start answered `answer` (its only try) and the lifecycle ended there. */
const startRefused = (made: Made, job: number, answer: Extract<Answer, { ok: false }>) => {
  const start = callsOf(made, job, 'start')[0]!;
  refuse(start, answer);
  made.history.calls = made.history.calls.filter((c) => c.job !== job || c === start);
  made.history.lifecycles[job]!.ended = { how: 'refused', op: 'start', reason: answer.type };
  nothingOnTheCluster(made, job);
  return start;
};

describe('chaos checker: a run that did what it set out to do', () => {
  it('has no violation, every lifecycle completed its shape, and every invariant checked at least its minimum', () => {
    fc.assert(
      fc.property(shapes, ops, (list, duplicated) => {
        const made = cleanRun(list, { duplicated });
        const report = run(made);
        expect(report.violations).toEqual([]);
        expect(report.completed).toBe(list.length);
        expect(report.incomplete).toEqual([]);
        for (const name of INVARIANTS) expect(report.checked[name]).toBeGreaterThanOrEqual(report.minimums[name]);
        expect(report.minimums['lifecycle-completes-shape']).toBe(list.length);
        expect(report.minimums['find-agrees']).toBe(list.length);
      }),
    );
  });

  it('the minimums are a function of the lifecycles: 100 plain runs answer 3 calls each, less the 1 % allowed short', () => {
    const made = cleanRun(Array.from({ length: 100 }, () => 'run' as const));
    for (const l of made.history.lifecycles) l.plan.mode = 'plain';
    const { minimums } = run(made);
    expect(minimums['answers-justified']).toBe(100 * 3 - 3);
    expect(minimums['lifecycle-completes-shape']).toBe(99);
    expect(minimums['no-orphans']).toBe(100 * 4 - 4);
    expect(minimums['stopped-jobs-are-gone']).toBe(0);
    expect(minimums['no-stuck-workflows']).toBe(1);
  });
});

describe('chaos checker: mutations of the product each produce violations', () => {
  it('a product that refuses every Start, with any type, and no fault to explain it', () => {
    const types = fc.constantFrom('ErrInvalid', 'ErrUnsupported', 'ErrRejected', 'ErrReadOnly', 'ErrUnreachable', 'ErrOutcomeUnknown', 'untyped') as fc.Arbitrary<Extract<Answer, { ok: false }>['type']>;
    fc.assert(
      fc.property(shapes, types, fc.integer({ min: 1, max: 9 }), (list, type, step) => {
        const made = cleanRun(list);
        for (const l of made.history.lifecycles) startRefused(made, l.plan.index, { ok: false, type, message: 'start: not proven', step });
        const found = invariantsOf(made);
        expect(found).toContain('answers-justified');
        expect(found).toContain('lifecycle-completes-shape');
      }),
    );
  });

  it('a product that refuses every Hold of a running job', () => {
    const made = cleanRun(['hold-release', 'hold-stop', 'run']);
    for (const hold of made.history.calls.filter((c) => c.op === 'hold')) refuse(hold, { ok: false, type: 'ErrRejected', message: 'Hold of TrainJob: not running' });
    const report = run(made);
    expect(report.violations.filter((v) => v.job !== undefined).map((v) => [v.invariant, v.job])).toEqual([
      ['answers-justified', 0],
      ['lifecycle-completes-shape', 0],
      ['answers-justified', 1],
      ['lifecycle-completes-shape', 1],
    ]);
    // Fewer answers than a run of three lifecycles must give: below the minimums too.
    expect(report.violations.filter((v) => v.job === undefined).map((v) => v.invariant)).toEqual(['lifecycle-completes-shape', 'answers-agree', 'answers-match-the-cluster']);
  });

  it('a product that refuses every Stop', () => {
    const made = cleanRun(['stop-gated', 'stop-running', 'hold-stop']);
    for (const stop of made.history.calls.filter((c) => c.op === 'stop')) refuse(stop, { ok: false, type: 'ErrRejected', message: 'Stop: not allowed' });
    // The jobs are still there, as a refused Stop leaves them.
    for (const job of [0, 1, 2]) made.final.trainJobs.push(obj(`job-${job}`, `uid-${job}`));
    const found = invariantsOf(made);
    expect(found).toEqual(expect.arrayContaining(['answers-justified', 'lifecycle-completes-shape', 'stopped-jobs-are-gone']));
  });

  it('a product that answers Absent for running jobs', () => {
    const made = cleanRun(['run', 'hold-release']);
    for (const open of made.history.calls.filter((c) => c.op === 'open')) (open.answer as { value: { phase: string } }).value.phase = 'Absent';
    expect(invariantsOf(made)).toEqual(['answers-justified', 'answers-match-the-cluster', 'lifecycle-completes-shape']);
  });

  it('a product that answers success for a job that does not exist', () => {
    fc.assert(
      fc.property(shapes, (list) => {
        const made = cleanRun(list);
        for (const l of made.history.lifecycles) nothingOnTheCluster(made, l.plan.index);
        for (const c of made.history.calls) c.seen = {};
        const found = invariantsOf(made);
        expect(found).toContain('answers-match-the-cluster');
        if (list.some((s) => !s.includes('stop'))) expect(found).toEqual(expect.arrayContaining(['one-trainjob-per-started-attempt', 'opened-jobs-reach-an-outcome']));
      }),
    );
  });

  it('a product whose Watch answers Failed for a job that ran, or whose Release of a job not held is refused', () => {
    const failed = cleanRun(['run']);
    const watch = callsOf(failed, 0, 'watch')[0]!;
    watch.answer = { ok: true, value: { ...(watch.answer as { value: object }).value, phase: 'Failed', reason: 'DeadlineExceeded' } };
    expect(invariantsOf(failed)).toEqual(['answers-justified', 'answers-match-the-cluster', 'lifecycle-completes-shape', 'opened-jobs-reach-an-outcome']);

    const release = cleanRun(['hold-release']);
    refuse(callsOf(release, 0, 'release')[0]!, { ok: false, type: 'ErrRejected', message: 'Release: not held' });
    expect(invariantsOf(release)).toEqual(expect.arrayContaining(['answers-justified', 'lifecycle-completes-shape']));
  });
});

describe('chaos checker: refusals pass only with their rule and what triggered it', () => {
  const JOBS = 200;
  const many = () => cleanRun(Array.from({ length: JOBS }, (_, i) => (i % 2 ? 'run' : 'hold-release') as Shape));

  it("step 1's ErrUnsupported for the start gate: a definite probe refusal with a fault in its window, justified and reported; without one, a violation", () => {
    const made = many();
    const start = startRefused(made, 0, { ok: false, type: 'ErrUnsupported', message: 'start: creating TrainJob chaos/probe: admission webhook "vtrainjob.kb.io" denied the request', step: 1 });
    expect(invariantsOf(made)).toEqual(['answers-justified', 'lifecycle-completes-shape']);
    const window = windowOf('gate-unsupported', 'plain');
    made.history.faults = [fault('kueue-restart', start.invokedAt - window + 5_000, start.invokedAt - window + 8_000)];
    const report = run(made);
    expect(report.violations).toEqual([]);
    expect(report.incomplete).toEqual([expect.objectContaining({ job: 0, justified: [expect.objectContaining({ rule: expect.stringContaining('§8'), because: ['fault 7: kueue-restart, down 2.0 s'] })] })]);
    // Past the window, or at another step, the fault no longer explains it.
    made.history.faults = [fault('kueue-restart', start.invokedAt - window - 5_000, start.invokedAt - window - 1)];
    expect(invariantsOf(made)).toEqual(['answers-justified', 'lifecycle-completes-shape']);
    made.history.faults = [fault('kueue-restart', start.invokedAt - 1_000, start.answeredAt)];
    (start.answer as { step: number }).step = 4;
    expect(invariantsOf(made)).toEqual(['answers-justified', 'lifecycle-completes-shape']);
  });

  it("step 1's ErrUnsupported whose probe had no definite answer (amendment 8a: the gate is unknown, ErrUnreachable) is a violation, whatever fault there was", () => {
    for (const message of ['start: creating TrainJob chaos/probe: no answer from the Kubernetes API within timeouts.call', 'start: the Workload of TrainJob chaos/probe was not right within 120s']) {
      const made = many();
      const start = startRefused(made, 0, { ok: false, type: 'ErrUnsupported', message, step: 1 });
      made.history.faults = [fault('apiserver-restart', start.invokedAt - 1_000, start.answeredAt)];
      const report = run(made);
      expect(report.violations.map((v) => v.invariant)).toEqual(['answers-justified', 'lifecycle-completes-shape']);
      expect(report.violations[0]!.detail).toContain('leaves the gate unknown (ErrUnreachable), not unproven');
    }
  });

  it("step 1's ErrUnreachable of a worker whose first preflight has not ended: justified by the run's start of its workers, within the gate window", () => {
    const made = cleanRun(['run']);
    const start = callsOf(made, 0, 'start')[0]!;
    const refused: CallRecord = { ...start, answer: { ok: false, type: 'ErrUnreachable', message: 'reach: not proven (no preflight has completed yet)', step: 1 }, answeredAt: start.invokedAt + 10 };
    delete refused.seen;
    start.try = 2;
    made.history.calls.unshift(refused);
    expect(invariantsOf(made)).toEqual(['answers-justified']);
    made.history.workersStarted = { from: start.invokedAt - 20_000, to: start.invokedAt - 5_000 };
    expect(invariantsOf(made)).toEqual([]);
    expect(run(made).justified).toEqual([expect.objectContaining({ because: ["the workers' first start"] })]);
    const window = windowOf('gate-unknown', 'plain');
    made.history.workersStarted = { from: start.invokedAt - window - 20_000, to: start.invokedAt - window - 1 };
    expect(invariantsOf(made)).toEqual(['answers-justified']);
  });

  it('more than 1 % of lifecycles short of their shape fails the run, however justified each is', () => {
    const made = many();
    made.history.faults = [fault('apiserver-restart', 0, 10_000_000_000)];
    for (const job of [0, 1]) startRefused(made, job, { ok: false, type: 'ErrUnsupported', message: 'start: refused', step: 1 });
    expect(invariantsOf(made)).toEqual([]);
    startRefused(made, 2, { ok: false, type: 'ErrUnsupported', message: 'start: refused', step: 1 });
    const report = run(made);
    expect(report.violations.filter((v) => v.job !== undefined)).toEqual([]);
    expect(report.violations[0]).toEqual({ invariant: 'lifecycle-completes-shape', detail: '3 of 200 lifecycles did not complete their shape; at most 2 (1 %) may' });
    expect(report.incomplete.map((l) => l.job)).toEqual([0, 1, 2]);
  });

  it('ErrUnreachable retried to an answer: justified by a fault overlapping the call or back just before it, a violation without one; a proxy fault that took nothing explains nothing', () => {
    const made = cleanRun(['run']);
    const open = callsOf(made, 0, 'open')[0]!;
    const retry: CallRecord = { ...open, try: 2, invokedAt: open.answeredAt + 100, answeredAt: open.answeredAt + 200 };
    refuse(open, { ok: false, type: 'ErrUnreachable', message: 'no answer within timeouts.call' });
    made.history.calls.push(retry);
    expect(invariantsOf(made)).toEqual(['answers-justified']);
    // Back CallBound before the call was sent: its part answered long before the call's CallBound ran out.
    made.history.faults = [fault('proxy', open.invokedAt - CALL_MS - 5_000, open.invokedAt - CALL_MS, 2)];
    expect(invariantsOf(made)).toEqual(['answers-justified']);
    made.history.faults = [fault('proxy', open.invokedAt - CALL_MS - 5_000, open.invokedAt - OPTIONS.windows.answerMs + 1, 0)];
    expect(invariantsOf(made)).toEqual(['answers-justified']);
    made.history.faults[0]!.hits = 2;
    expect(invariantsOf(made)).toEqual([]);
    expect(run(made).justified).toEqual([expect.objectContaining({ op: 'open', rule: expect.stringContaining('ErrUnreachable') })]);
    // Not retried to an answer: the lifecycle did not complete, whatever explains the refusal.
    made.history.calls = made.history.calls.filter((c) => c !== retry);
    expect(run(made).violations.filter((v) => v.job === 0).map((v) => v.invariant)).toEqual(['lifecycle-completes-shape']);
  });

  it('untyped answers are explained by a Temporal restart only; ErrInvalid by nothing', () => {
    const made = cleanRun(['run']);
    const watch = callsOf(made, 0, 'watch')[0]!;
    const first: CallRecord = { ...watch, try: 1, answer: { ok: false, type: 'untyped', message: 'ServiceError: connection refused' }, answeredAt: watch.invokedAt + 10 };
    watch.try = 2;
    made.history.calls.push(first);
    made.history.faults = [fault('apiserver-restart', watch.invokedAt, watch.answeredAt)];
    expect(invariantsOf(made)).toEqual(['answers-justified']);
    made.history.faults = [fault('temporal-restart', watch.invokedAt, watch.answeredAt)];
    expect(invariantsOf(made)).toEqual([]);
    first.answer = { ok: false, type: 'ErrInvalid', message: 'bad ref' };
    expect(invariantsOf(made)).toEqual(['answers-justified']);
  });

  it('a Hold refused ErrRejected is justified when the record shows the job had finished; the Release then answers its state', () => {
    const made = cleanRun(['hold-release']);
    const hold = callsOf(made, 0, 'hold')[0]!;
    refuse(hold, { ok: false, type: 'ErrRejected', message: 'Hold of TrainJob chaos/job-0: it has Succeeded' });
    (callsOf(made, 0, 'release')[0]!.answer as { value: { phase: string } }).value.phase = 'Succeeded';
    callsOf(made, 0, 'release')[0]!.seen = { uid: 'uid-0', finished: 'Complete' };
    expect(run(made).violations.filter((v) => v.job === 0).map((v) => v.invariant)).toEqual(['answers-justified', 'lifecycle-completes-shape']);
    // The Watch says it finished before the Hold was answered.
    const watch = callsOf(made, 0, 'watch')[0]!;
    (watch.answer as { value: { finishedAt: string } }).value.finishedAt = iso(hold.answeredAt - 500);
    const report = run(made);
    expect(report.violations.filter((v) => v.job === 0)).toEqual([]);
    expect(report.incomplete).toEqual([expect.objectContaining({ job: 0, justified: [expect.objectContaining({ rule: expect.stringContaining('Hold of a Succeeded') })] })]);
  });

  it('a lifecycle given up is justified only by a fault during the unanswered call', () => {
    const made = cleanRun(['run']);
    made.history.calls = made.history.calls.filter((c) => c.op !== 'watch');
    const at = callsOf(made, 0, 'open')[0]!.answeredAt + 600_000;
    made.history.lifecycles[0]!.ended = { how: 'gave-up', op: 'watch', reason: 'watch: no answer within 600000 ms', since: at - 600_000, at };
    expect(invariantsOf(made)).toContain('lifecycle-completes-shape');
    made.history.faults = [fault('worker-kill', at - 300_000, at - 299_000)];
    const report = run(made);
    expect(report.incomplete[0]!.justified[0]!.because).toEqual(['fault 7: worker-kill, down 2.0 s']);
    // Justified, yet the Watch it gave up on never said Succeeded, and one of one lifecycles is more than 1 %.
    expect(report.violations.map((v) => [v.invariant, v.job])).toEqual(expect.arrayContaining([['opened-jobs-reach-an-outcome', 0], ['lifecycle-completes-shape', undefined]]));
    expect(report.violations.filter((v) => v.invariant === 'lifecycle-completes-shape' && v.job === 0)).toEqual([]);
  });
});

describe('chaos checker: the cluster at the end', () => {
  it('a second TrainJob of a started job, or none, breaks one-trainjob-per-started-attempt', () => {
    const twice = cleanRun(['run']);
    twice.final.trainJobs.push(obj('job-0', 'other', [], { conditions: ['Complete'] }));
    expect(invariantsOf(twice)).toContain('one-trainjob-per-started-attempt');
    const none = cleanRun(['run']);
    none.final.trainJobs = [];
    expect(invariantsOf(none)).toEqual(expect.arrayContaining(['one-trainjob-per-started-attempt', 'no-orphans', 'find-agrees', 'opened-jobs-reach-an-outcome']));
  });

  it('a TrainJob kept after a Start that never answered a ref breaks nothing-without-a-start', () => {
    const made = cleanRun(Array.from({ length: 100 }, () => 'run' as const));
    made.history.faults = [fault('apiserver-restart', 0, 10_000_000_000)];
    startRefused(made, 0, { ok: false, type: 'ErrRejected', message: 'set owner: no answer', step: 7 });
    expect(invariantsOf(made)).toEqual([]);
    made.final.trainJobs.push(obj('job-0', 'uid-0'));
    expect(invariantsOf(made)).toEqual(expect.arrayContaining(['nothing-without-a-start']));
  });

  it('objects whose owner is gone are orphans, down to the pods', () => {
    for (const kind of ['copies', 'workloads', 'jobSets', 'jobs', 'pods'] as const) {
      const made = cleanRun(['run', 'stop-running']);
      made.final[kind].push(obj(`left-${kind}`, `left-${kind}`, ['gone']));
      expect(invariantsOf(made)).toEqual(['no-orphans']);
    }
  });

  it("an orphan with owners that are gone is the garbage collector's (collectible); an unowned copy is not", () => {
    const made = cleanRun(['run']);
    made.final.jobs.push(obj('left-job', 'left-job', ['gone-jobset']));
    made.final.copies.push(obj('left-copy', 'left-copy', []));
    const found = run(made).violations.filter((v) => v.detail.includes(' has no '));
    expect(found.map((v) => [v.detail.split(' (')[0], v.collectible ?? false])).toEqual([
      ['runtime copy left-copy', false],
      ['Job left-job', true],
    ]);
  });

  it('answers that name different UIDs break answers-agree', () => {
    const made = cleanRun(['run']);
    made.history.calls.push({ job: 0, op: 'start', copy: 1, try: 1, invokedAt: 9, answeredAt: 10, answer: { ok: true, value: { uid: 'another' } } });
    expect(invariantsOf(made)).toEqual(['answers-agree']);
  });

  it('Find answering Absent after the attempt ended ErrOutcomeUnknown, within CallBound, breaks outcome-unknown-is-in-flight; no Find at all is below its minimum', () => {
    const made = cleanRun(['run']);
    const start = callsOf(made, 0, 'start')[0]!;
    made.history.faults = [fault('proxy', start.invokedAt - 10, start.invokedAt, 1)];
    const unknown: CallRecord = { ...start, try: 0, answer: { ok: false, type: 'ErrOutcomeUnknown', message: 'create unanswered', step: 6 }, answeredAt: start.invokedAt - 5 };
    delete unknown.seen;
    made.history.calls.unshift(unknown);
    expect(run(made).violations.map((v) => v.detail)).toEqual([expect.stringMatching(/^checked 0 cases; .* at least 1$/)]);
    const find = (value: unknown, at: number): CallRecord => ({ job: 0, op: 'find', copy: 0, try: 1, invokedAt: at, answeredAt: at + 1, answer: { ok: true, value } });
    made.history.calls.push(find({ state: 'InFlight', workflowId: 'w' }, start.invokedAt - 4));
    expect(invariantsOf(made)).toEqual([]);
    made.history.calls.push(find({ state: 'Absent' }, start.invokedAt - 3));
    expect(invariantsOf(made)).toEqual(['outcome-unknown-is-in-flight']);
  });

  it('a stopped job still there, a workflow still running', () => {
    const kept = cleanRun(['stop-running']);
    kept.final.trainJobs.push(obj('job-0', 'uid-0'));
    kept.final.copies.push(obj('job-0', 'copy-0', ['uid-0']));
    expect(invariantsOf(kept)).toEqual(['find-agrees', 'stopped-jobs-are-gone']);

    const stuck = cleanRun(['run']);
    stuck.final.running.push({ workflowId: 'watch/chaos/job-0/uid-0', type: 'WatchTrainJob' });
    expect(invariantsOf(stuck)).toEqual(['no-stuck-workflows']);
  });
});

describe('chaos checker: the rules of the amended contract, each failing a wrong product', () => {
  /** One lifecycle's Start refused at step 1 with `answer` (then retried to its ref) at `at`, answered after CallBound's wait. */
  const refusedAtStep1 = (made: Made, job: number, at: number, answer: Extract<Answer, { ok: false }>) => {
    const start = callsOf(made, job, 'start')[0]!;
    const refused: CallRecord = { ...start, try: 1, invokedAt: at, answeredAt: at + CALL_MS, answer };
    delete refused.seen;
    start.try = 2;
    made.history.calls.unshift(refused);
    return refused;
  };

  it("a step-1 ErrUnreachable in a quiet stretch of the run is a violation; the same right after a fault's return is not", () => {
    // A run with a fault each 120 s: the stretch between two is quiet for every rule.
    const made = cleanRun(Array.from({ length: 10 }, () => 'run' as const));
    const t0 = made.history.calls[0]!.invokedAt;
    made.history.faults = [0, 1, 2, 3, 4, 5, 6, 7].map((i) => ({ ...fault(i % 2 ? 'apiserver-restart' : 'trainer-restart', t0 + i * 120_000, t0 + i * 120_000 + 6_000), index: i }));
    const quiet = t0 + 3 * 120_000 + 80_000;
    const answer = { ok: false as const, type: 'ErrUnreachable' as const, message: 'start: not proven (the probe had no definite answer)', step: 1 };
    refusedAtStep1(made, 0, quiet, answer);
    const report = run(made);
    expect(report.violations.map((v) => [v.invariant, v.job])).toEqual([['answers-justified', 0]]);
    expect(report.violations[0]!.detail).toMatch(/gate-unknown needs a fault .* answered; the record has none/);
    // Answered 20 s after the API server was back: the re-probe's window.
    made.history.calls[0]!.answeredAt = t0 + 3 * 120_000 + 6_000 + 20_000;
    made.history.calls[0]!.invokedAt = made.history.calls[0]!.answeredAt - CALL_MS;
    expect(run(made).violations).toEqual([]);
  });

  it("a Watch refused, even while the API server was away, is a violation (Watch ends only with an Outcome); the Temporal client's own failure is not", () => {
    const made = cleanRun(['run']);
    const watch = callsOf(made, 0, 'watch')[0]!;
    const first: CallRecord = { ...watch, try: 1, answer: { ok: false, type: 'ErrUnreachable', message: 'reading the watched TrainJob: no answer' }, answeredAt: watch.invokedAt + 10 };
    delete first.seen;
    watch.try = 2;
    made.history.calls.push(first);
    made.history.faults = [fault('apiserver-restart', watch.invokedAt - 1_000, watch.answeredAt), fault('temporal-restart', watch.invokedAt - 1_000, watch.answeredAt)];
    const report = run(made);
    expect(report.violations.map((v) => v.invariant)).toEqual(['answers-justified']);
    expect(report.violations[0]!.detail).toContain('a Watch ends only with an Outcome');
    for (const answer of [{ ok: false as const, type: 'ErrReadOnly' as const, message: 'trainjobs is forbidden' }, { ok: false as const, type: 'ErrRejected' as const, message: 'forbidden' }]) {
      first.answer = answer;
      expect(invariantsOf(made)).toEqual(['answers-justified']);
    }
    first.answer = { ok: false, type: 'untyped', message: 'ServiceError: 14 UNAVAILABLE' };
    expect(invariantsOf(made)).toEqual([]);
  });

  it("a dispatch object left that belongs to no lifecycle breaks no-orphans, unless it is a probe's still inside its probe's bound", () => {
    const bound = OPTIONS.windows.probeBoundMs;
    const readAt = 5_000_000;
    const withLeftover = (trainJob: FinalObject, copy?: FinalObject) => {
      const made = cleanRun(['run', 'stop-running']);
      made.final.readAt = readAt;
      made.final.trainJobs.push(trainJob);
      if (copy) made.final.copies.push(copy);
      return made;
    };
    // A lost attempt's TrainJob and copy, named as no lifecycle is, owning each other as Start leaves them.
    const lost = withLeftover(obj('dj-lost-s1', 'lost', [], { jobId: 'lost', createdAt: readAt - 1_000 }), obj('dj-lost-s1', 'lost-copy', ['lost'], { jobId: 'lost' }));
    const found = run(lost).violations;
    expect(found.map((v) => v.invariant)).toEqual(['no-orphans', 'no-orphans']);
    expect(found.map((v) => v.detail)).toEqual([expect.stringMatching(/^TrainJob dj-lost-s1 .* of no lifecycle and no probe$/), expect.stringMatching(/^runtime copy dj-lost-s1 .* of no lifecycle and no probe$/)]);

    const probeJob = '0000000000DSPATCH7ZZZZZZZZ';
    const probe = (createdAt?: number) => obj(`dj-${probeJob.toLowerCase()}-s1`, 'probe', [], { jobId: probeJob.toLowerCase(), ...(createdAt === undefined ? {} : { createdAt }) });
    expect(invariantsOf(withLeftover(probe(readAt - bound + 1_000)))).toEqual([]);
    // Past it: a leftover, and a TrainJob without its copy besides.
    expect(run(withLeftover(probe(readAt - bound - 1_000))).violations.map((v) => v.detail)).toEqual(['TrainJob dj-0000000000dspatch7zzzzzzzz-s1 owns 0 runtime copies, not 1', expect.stringContaining(`past its probe's bound of ${bound / 1000} s`)]);
    expect(invariantsOf(withLeftover(probe()))).toEqual(['no-orphans']);
    // A TrainJob without dispatch's label (and with its copy) is not dispatch's to answer for.
    expect(invariantsOf(withLeftover(obj('someone-elses', 'other', [], { managed: false }), obj('someone-elses', 'other-copy', ['other'], { managed: false })))).toEqual([]);
  });

  it('lifecycles that outran the budget break run-within-budget', () => {
    const made = cleanRun(['run']);
    made.history.budget = { ms: 60_000 };
    expect(invariantsOf(made)).toEqual([]);
    made.history.budget.exceededAt = made.history.calls[0]!.invokedAt + 60_000;
    made.history.ran = { from: made.history.calls[0]!.invokedAt, to: made.history.budget.exceededAt + 5_000 };
    const report = run(made);
    expect(report.violations).toEqual([{ invariant: 'run-within-budget', detail: "the lifecycles outran the run's budget of 60 s and were given up 60 s into the run" }]);
  });
});

describe('chaos checker: the MultiKueue run (--multikueue)', () => {
  const MK_OPTIONS = { ...OPTIONS, workerClusters: ['worker-1'], failExitCode: 3 };
  /** A clean run as MultiKueue makes it: Kueue mode, the jobs' JobSets, Jobs and pods on the worker cluster, each Outcome naming it. */
  const multiKueueRun = (shapes: Shape[]): Made => {
    const made = cleanRun(shapes);
    for (const l of made.history.lifecycles) Object.assign(l.plan, { mode: 'kueue', multiKueue: true });
    for (const c of made.history.calls) if (c.op === 'watch' && c.answer.ok) (c.answer.value as { cluster?: string }).cluster = 'worker-1';
    made.final.workloads = made.final.trainJobs.map((t) => obj(`trainjob-${t.name}-abcde`, `wl-${t.uid}`, [t.uid]));
    Object.assign(made.final, { jobSets: [], jobs: [], pods: [] });
    return made;
  };
  const mkRun = (made: Made) => check(made.history, made.final, MK_OPTIONS);
  const watchOf = (made: Made, job: number) => callsOf(made, job, 'watch')[0]!.answer as { ok: true; value: { cluster?: string; exitCode?: number; message: string } };

  it('a clean run: no violation, each job left to run checked to have run on the worker cluster, the cleanup audit not counted here', () => {
    fc.assert(
      fc.property(shapes, (list) => {
        const made = multiKueueRun(list);
        const report = mkRun(made);
        expect(report.violations).toEqual([]);
        expect(report.completed).toBe(list.length);
        const left = list.filter((s) => !s.includes('stop')).length;
        expect(report.checked['ran-on-a-worker-cluster']).toBe(left);
        expect(report.minimums['ran-on-a-worker-cluster']).toBe(Math.max(0, left - Math.floor(list.length / 100)));
        expect(report.minimums['clusters-clean-after-cleanup']).toBe(2 * list.length - 2 * Math.floor(list.length / 100));
        expect(report.checked['clusters-clean-after-cleanup']).toBe(0);
      }),
    );
  });

  it('a job that did not run on a worker cluster (no cluster, another one), or failed with the wrong exit code or none said, breaks ran-on-a-worker-cluster', () => {
    const made = multiKueueRun(['run', 'run-fail', 'run-fail']);
    delete watchOf(made, 0).value.cluster;
    watchOf(made, 1).value.exitCode = 1;
    delete watchOf(made, 2).value.exitCode;
    const found = mkRun(made).violations;
    expect(found.map((v) => [v.invariant, v.job])).toEqual([
      ['ran-on-a-worker-cluster', 0],
      ['ran-on-a-worker-cluster', 1],
      ['ran-on-a-worker-cluster', 2],
    ]);
    expect(found[0]!.detail).toMatch(/^Watch's Outcome Succeeded, cluster none, .*the run's worker clusters: \[worker-1\]$/);
    // Without the exit code, the Outcome must say why (docs/multikueue.md): then it passes.
    watchOf(made, 2).value.message = 'failed; exit code not read: worker cluster worker-1 answered no pod of it';
    expect(mkRun(made).violations.map((v) => v.job)).toEqual([0, 1]);
  });

  it('a failed job Watch answered Succeeded, or that the manager does not show Failed, breaks opened-jobs-reach-an-outcome', () => {
    const made = multiKueueRun(['run-fail']);
    Object.assign(watchOf(made, 0).value, { phase: 'Succeeded' });
    expect(invariantsOf(made)).toContain('opened-jobs-reach-an-outcome');
    const conditions = multiKueueRun(['run-fail']);
    conditions.final.trainJobs[0]!.conditions = ['Complete'];
    expect(check(conditions.history, conditions.final, MK_OPTIONS).violations.map((v) => v.invariant)).toEqual(['opened-jobs-reach-an-outcome']);
  });
});
