// Start's back-to-back calls on their first attempt, as one local activity each (patch
// `start-folded-calls`, docs/versioning.md): steps 2 and 5 (read the runtime, plan steps 3 and 4 with
// the pure core, create the copy), and steps 7 and 8 (set the copy's owner, read the TrainJob back).
// A local activity costs the worker one activation when it completes; a plain Start made seven, and
// these two folds take two away (docs/performance.md).
//
// Each step's call is the very function its own activity runs. A definite refusal is thrown as that
// function throws it (it carries its step). Any other failure (an unanswered call) ends the fold
// there, answered with what the steps before it returned and the step it stopped at: the workflow
// goes on from that step with the step's own activity and the rest of its retry
// (src/workflows/folded-steps.ts), so that each call keeps its retry, its classification and the
// step an operator sees while it backs off.
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import type { Config } from '../model/config.js';
import { DispatchError, isErrorType } from '../model/errors.js';
import type { TrainerRuntime, TrainJob } from '../model/kube.js';
import { planStart } from '../core/start/plan.js';
import type { ValidRequest } from '../core/start/validated.js';
import type { CreatedCopy, CreatedObject } from './runtime-activities.js';

/** The calls the folds are made of: the step activities themselves (stubs in the workflow tests). */
export interface StepCalls {
  readRuntime(input: { namespace: string; runtime: ValidRequest['runtime'] }): Promise<TrainerRuntime>;
  createRuntimeCopy(input: { copy: TrainerRuntime; trainJob?: TrainJob; mode?: Config['mode']; kueue?: Config['kueue'] }): Promise<CreatedCopy>;
  setOwner(input: { namespace: string; copy: CreatedObject; trainJob: CreatedObject }): Promise<void>;
  readBack(input: { namespace: string; name: string }): Promise<TrainJob>;
}

/** Where a fold stopped: the step whose call was not answered, and what its failure said. */
export interface FoldStop {
  step: number;
  reason: string;
}

/** Steps 2 and 5 folded: the runtime once read; the copy once made (absent when the plan refused). */
export interface CopyFold {
  runtime?: TrainerRuntime;
  copy?: CreatedCopy;
  stopped?: FoldStop;
}

/** Steps 7 and 8 folded: the TrainJob read back once the owner is set. */
export interface OwnerFold {
  read?: TrainJob;
  stopped?: FoldStop;
}

/** A failure the step's own activity would not retry (a definite refusal, a cancellation): the fold throws it. */
function isFinal(error: unknown): boolean {
  if (error instanceof DispatchError || error instanceof CancelledFailure) return true;
  return error instanceof ApplicationFailure && (error.nonRetryable || isErrorType(error.type ?? ''));
}

/** Runs one step of a fold: its value, or where and why it stopped (thrown when the step's retry would not retry it). */
async function step<T>(at: number, call: () => Promise<T>): Promise<{ value: T } | { stopped: FoldStop }> {
  try {
    return { value: await call() };
  } catch (error) {
    if (isFinal(error)) throw error;
    return { stopped: { step: at, reason: error instanceof Error ? error.message : String(error) } };
  }
}

/** Starts timing one step's call inside a fold; the returned function stops it (the worker's step metrics). */
export type TimeStep = (activity: keyof StepCalls) => () => void;

export function foldedStartActivities(stepCalls: StepCalls, timeStep?: TimeStep) {
  const calls = timedCalls(stepCalls, timeStep);
  return {
    /**
     * Steps 2 to 5 on their first attempt. A plan that refuses (steps 3 and 4) answers the runtime
     * alone: the workflow plans again from it, with the same pure code, and refuses there.
     */
    async readRuntimeThenCopy(input: { namespace: string; valid: ValidRequest; config: Config; probe: boolean }): Promise<CopyFold> {
      const { namespace, valid, config, probe } = input;
      const read = await step(2, () => calls.readRuntime({ namespace, runtime: valid.runtime }));
      if ('stopped' in read) return { stopped: read.stopped };
      const runtime = read.value;
      let plan;
      try {
        plan = planStart(valid, runtime, config, { probe });
      } catch (error) {
        if (error instanceof DispatchError) return { runtime };
        throw error;
      }
      const copyInput = { copy: plan.runtimeCopy, trainJob: plan.trainJob, mode: config.mode, kueue: config.kueue };
      const made = await step(5, () => calls.createRuntimeCopy(copyInput));
      return 'stopped' in made ? { runtime, stopped: made.stopped } : { runtime, copy: made.value };
    },

    /** Steps 7 and 8 on their first attempt. */
    async setOwnerThenReadBack(input: { namespace: string; copy: CreatedObject; trainJob: CreatedObject }): Promise<OwnerFold> {
      const owned = await step(7, () => calls.setOwner(input));
      if ('stopped' in owned) return { stopped: owned.stopped };
      const read = await step(8, () => calls.readBack({ namespace: input.namespace, name: input.trainJob.name }));
      return 'stopped' in read ? { stopped: read.stopped } : { read: read.value };
    },
  };
}

/** The step calls, each timed as its own activity would be. */
function timedCalls(calls: StepCalls, timeStep?: TimeStep): StepCalls {
  if (!timeStep) return calls;
  const timed = <A, R>(name: keyof StepCalls, call: (input: A) => Promise<R>) => async (input: A): Promise<R> => {
    const stop = timeStep(name);
    try {
      return await call(input);
    } finally {
      stop();
    }
  };
  return {
    readRuntime: timed('readRuntime', calls.readRuntime),
    createRuntimeCopy: timed('createRuntimeCopy', calls.createRuntimeCopy),
    setOwner: timed('setOwner', calls.setOwner),
    readBack: timed('readBack', calls.readBack),
  };
}
