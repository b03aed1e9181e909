// The chaos checker on recorded runs made by hand: a run where every answer matches the cluster
// has no violation, and each way a run can go wrong is named by its invariant.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { check, INVARIANTS, type Invariant } from '../../chaos/checker.js';
import type { Answer, CallRecord, FinalObject, FinalState, LifecycleRecord, RunHistory } from '../../chaos/history.js';
import { SHAPES, type LifecyclePlan, type Operation, type Shape } from '../../chaos/schedule.js';

const NS = 'chaos';
const CALL_MS = 30_000;

interface Made {
  history: RunHistory;
  final: FinalState;
}

const obj = (name: string, uid: string, owners: string[] = [], extra: Partial<FinalObject> = {}): FinalObject => ({ name, uid, owners, deleting: false, ...extra });

/** A run where everything went right: each lifecycle's calls answered ok, the cluster as they say. */
function cleanRun(shapes: Shape[]): Made {
  const lifecycles: LifecycleRecord[] = [];
  const calls: CallRecord[] = [];
  const final: FinalState = { trainJobs: [], copies: [], workloads: [], jobSets: [], jobs: [], pods: [], running: [], finds: {} };
  let t = 0;
  shapes.forEach((shape, index) => {
    const plan: LifecyclePlan = { index, mode: index % 2 ? 'kueue' : 'plain', shape, runtime: 'short', duplicated: [], pauseMs: 0 };
    const name = `job-${index}`;
    const uid = `uid-${index}`;
    const ref = { namespace: NS, name, uid };
    lifecycles.push({ plan, jobId: `j${index}`, submission: 1, name });
    const answer = (op: Operation, value: unknown) => calls.push({ job: index, op, copy: 0, try: 1, invokedAt: t++, answeredAt: t++, answer: { ok: true, value } });
    answer('start', { ref: `${NS}/${name}`, uid, namespace: NS, name, runtimeCopy: name, mode: plan.mode });
    const stops = shape.includes('stop');
    for (const op of SHAPES[shape]) {
      if (op === 'watch') answer('watch', stops ? { ref, phase: 'Absent', reason: 'Deleted' } : { ref, phase: 'Succeeded', reason: 'Complete' });
      else answer(op, { ref, phase: op === 'stop' ? 'Absent' : 'Running', held: op === 'hold', reasons: [] });
    }
    if (stops) {
      final.finds[index] = { state: 'Absent' };
      return;
    }
    final.trainJobs.push(obj(name, uid, [], { conditions: ['Complete'] }));
    final.copies.push(obj(name, `copy-${index}`, [uid]));
    final.jobSets.push(obj(name, `js-${index}`, [uid]));
    final.jobs.push(obj(`${name}-node-0`, `job-${index}`, [`js-${index}`]));
    final.pods.push(obj(`${name}-node-0-0`, `pod-${index}`, [`job-${index}`]));
    if (plan.mode === 'kueue') final.workloads.push(obj(`trainjob-${name}`, `wl-${index}`, [uid]));
    final.finds[index] = { state: 'Present', ref, attemptToken: 't' };
  });
  return { history: { seed: 1, lifecycles, calls }, final };
}

const invariantsOf = (made: Made) => [...new Set(check(made.history, made.final, { callBoundMs: CALL_MS }).violations.map((v) => v.invariant))];
const shapes = fc.array(fc.constantFrom(...(Object.keys(SHAPES) as Shape[])), { minLength: 1, maxLength: 12 });

describe('chaos checker', () => {
  it('a run whose answers match the cluster has no violation, and every invariant was looked at', () => {
    fc.assert(
      fc.property(shapes, (list) => {
        const made = cleanRun(list);
        const report = check(made.history, made.final, { callBoundMs: CALL_MS });
        expect(report.violations).toEqual([]);
        expect(report.checked['find-agrees']).toBe(list.length);
        expect(report.checked['every-lifecycle-ends']).toBe(list.length);
      }),
    );
    const all = cleanRun(['run', 'stop-running', 'hold-release', 'hold-stop', 'stop-gated', 'run']);
    const report = check(all.history, all.final, { callBoundMs: CALL_MS });
    const unlooked: Invariant[] = INVARIANTS.filter((i) => report.checked[i] === 0);
    // Only the rules about refusals have nothing to look at in a run where every call succeeded.
    expect(unlooked).toEqual(['no-impossible-refusals', 'nothing-without-a-start', 'outcome-unknown-is-in-flight']);
  });

  it('a second TrainJob of a started job, or none, breaks one-trainjob-per-started-attempt', () => {
    const twice = cleanRun(['run']);
    twice.final.trainJobs.push(obj('job-0', 'other', [], { conditions: ['Complete'] }));
    expect(invariantsOf(twice)).toContain('one-trainjob-per-started-attempt');
    const none = cleanRun(['run']);
    none.final.trainJobs = [];
    expect(invariantsOf(none)).toEqual(expect.arrayContaining(['one-trainjob-per-started-attempt', 'no-orphans', 'find-agrees', 'opened-jobs-reach-an-outcome']));
  });

  it('a TrainJob kept after a Start that answered ErrUnreachable breaks nothing-without-a-start', () => {
    const made = cleanRun(['run']);
    const unreachable: Answer = { ok: false, type: 'ErrUnreachable', message: 'no answer within timeouts.call', step: 6 };
    made.history.calls = [{ job: 0, op: 'start', copy: 0, try: 1, invokedAt: 0, answeredAt: 1, answer: unreachable }];
    made.history.lifecycles[0]!.ended = { how: 'refused', op: 'start', reason: 'ErrUnreachable' };
    expect(invariantsOf(made)).toEqual(['nothing-without-a-start']);
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
    const found = check(made.history, made.final, { callBoundMs: CALL_MS }).violations;
    expect(found.map((v) => [v.detail.split(' (')[0], v.collectible ?? false])).toEqual([
      ['runtime copy left-copy', false],
      ['Job left-job', true],
    ]);
  });

  it("ErrUnsupported at step 1 for the start gate (the contract's answer after a failed probe) is possible; at another step, or for no gate, it is not", () => {
    const refusedWith = (answer: Answer) => {
      const made = cleanRun(['run']);
      made.history.calls = [{ job: 0, op: 'start', copy: 0, try: 1, invokedAt: 0, answeredAt: 1, answer }];
      made.history.lifecycles[0]!.ended = { how: 'refused', op: 'start', reason: answer.ok ? '' : answer.type };
      made.final.trainJobs = [];
      made.final.copies = [];
      made.final.workloads = [];
      made.final.jobSets = [];
      made.final.jobs = [];
      made.final.pods = [];
      return invariantsOf(made);
    };
    const gate: Answer = { ok: false, type: 'ErrUnsupported', message: 'start: waiting for TrainJob chaos/dj-x-s1: no answer', step: 1 };
    expect(refusedWith(gate)).not.toContain('no-impossible-refusals');
    expect(refusedWith({ ...gate, step: 4 })).toContain('no-impossible-refusals');
    expect(refusedWith({ ...gate, message: 'runtime dispatch-torch does not exist' })).toContain('no-impossible-refusals');
  });

  it('answers that name different UIDs break answers-agree; ErrInvalid under faults is impossible', () => {
    const made = cleanRun(['run']);
    made.history.calls.push({ job: 0, op: 'start', copy: 1, try: 1, invokedAt: 9, answeredAt: 10, answer: { ok: true, value: { uid: 'another' } } });
    made.history.calls.push({ job: 0, op: 'open', copy: 1, try: 1, invokedAt: 9, answeredAt: 10, answer: { ok: false, type: 'ErrInvalid', message: 'bad ref' } });
    expect(invariantsOf(made).sort()).toEqual(['answers-agree', 'no-impossible-refusals']);
  });

  it('Find answering Present after the attempt ended ErrOutcomeUnknown, within CallBound, breaks outcome-unknown-is-in-flight', () => {
    const made = cleanRun(['run']);
    const unknown: Answer = { ok: false, type: 'ErrOutcomeUnknown', message: 'create unanswered', step: 6 };
    made.history.calls.unshift({ job: 0, op: 'start', copy: 0, try: 0, invokedAt: -5, answeredAt: -4, answer: unknown });
    const find = (value: unknown, at: number): CallRecord => ({ job: 0, op: 'find', copy: 0, try: 1, invokedAt: at, answeredAt: at + 1, answer: { ok: true, value } });
    made.history.calls.push(find({ state: 'InFlight', workflowId: 'w' }, -3));
    expect(invariantsOf(made)).toEqual([]);
    made.history.calls.push(find({ state: 'Absent' }, -2));
    expect(invariantsOf(made)).toEqual(['outcome-unknown-is-in-flight']);
    // Past CallBound, Find may answer what the cluster has.
    const late = cleanRun(['run']);
    late.history.calls.unshift({ job: 0, op: 'start', copy: 0, try: 0, invokedAt: -5, answeredAt: -4, answer: unknown });
    late.history.calls.push(find({ state: 'Absent' }, CALL_MS));
    expect(invariantsOf(late)).toEqual([]);
  });

  it('an opened job whose Watch never said Succeeded, a stopped job still there, a workflow still running, a lifecycle given up', () => {
    const failed = cleanRun(['run']);
    const watch = failed.history.calls.find((c) => c.op === 'watch')!;
    watch.answer = { ok: true, value: { ref: { namespace: NS, name: 'job-0', uid: 'uid-0' }, phase: 'Failed', reason: 'DeadlineExceeded' } };
    expect(invariantsOf(failed)).toEqual(['opened-jobs-reach-an-outcome']);

    // An Open retried after its answer was lost, refused because the job has Succeeded, still opened it.
    const retried = cleanRun(['run']);
    const open = retried.history.calls.find((c) => c.op === 'open')!;
    open.answer = { ok: false, type: 'ErrRejected', message: 'Open of TrainJob chaos/job-0: it has Succeeded' };
    expect(invariantsOf(retried)).toEqual([]);
    retried.history.calls.find((c) => c.op === 'watch')!.answer = watch.answer;
    expect(invariantsOf(retried)).toEqual(['opened-jobs-reach-an-outcome']);

    const kept = cleanRun(['stop-running']);
    kept.final.trainJobs.push(obj('job-0', 'uid-0'));
    kept.final.copies.push(obj('job-0', 'copy-0', ['uid-0']));
    expect(invariantsOf(kept).sort()).toEqual(['find-agrees', 'stopped-jobs-are-gone']);

    const stuck = cleanRun(['run']);
    stuck.final.running.push({ workflowId: 'watch/chaos/job-0/uid-0', type: 'WatchTrainJob' });
    expect(invariantsOf(stuck)).toEqual(['no-stuck-workflows']);

    const gaveUp = cleanRun(['run']);
    gaveUp.history.lifecycles[0]!.ended = { how: 'gave-up', op: 'open', reason: 'still ErrUnreachable' };
    expect(invariantsOf(gaveUp)).toEqual(['every-lifecycle-ends']);
  });
});
