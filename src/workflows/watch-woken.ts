// WatchTrainJob as docs/contract.md §9b says (patch `watch-woken`, watch-trainjob.ts): the Watch
// holds no activity while it waits. It reads the phase with one short local activity
// (checkWatchedTrainJob), then waits on a durable timer of timeouts.watchRecheck that a `wake`
// signal ends early: the worker's one shared watch of the namespace sends it when the TrainJob (or
// its Workload) changes (src/worker/watch-waker.ts). A lost wake, or no worker at all for a while,
// costs at most one timer. While nothing changes a Watch costs one timer and one read per
// watchRecheck (docs/performance.md).
//
// An API that does not answer never ends it (docs/contract.md §9a): the read is tried again after
// 1 s, then twice as long each time up to watchRecheck (a wake tries at once), and the current
// details say since when. Its history stays bounded: it continues as new when Temporal suggests it
// or past MAX_EVENTS, carrying what it showed.
import { condition, continueAsNew, defineSignal, isCancellation, proxyLocalActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import { DispatchError } from '../model/errors.js';
import { fromFailure } from '../model/error-failures.js';
import { parseGoDuration, toMillis } from '../model/duration.js';
import type { Outcome, Phase } from '../model/operations.js';
import { WATCH_WAKE_SIGNAL } from '../contract/names.js';
import { classify } from './failures.js';
import { keepFirstTaskOpen, type FirstTaskOpen } from './first-task-open.js';
import type { OperationReporter } from './operation-progress.js';
import type { OperationContext } from './run-operation.js';
import { ACTIVITY_LABELS } from '../core/start/steps.js';

/** What a Watch carries into its next run when it continues as new. */
export interface WatchCarried {
  /** The phase it last showed. */
  shown?: Phase;
  /** The API has not answered since then (ISO time). */
  unansweredSince?: string;
  /** Reads left unanswered in a row: the next wait doubles with each. */
  unanswered?: number;
}

/** A run continues as new past this many events, if Temporal has not suggested it before. */
export const MAX_EVENTS = 1_000;
/** The first wait after an unanswered read; it doubles with each one in a row, up to watchRecheck. */
export const FIRST_RETRY_MS = 1_000;
/** The default of timeouts.watchRecheck, for a config that predates it. */
const DEFAULT_RECHECK = '15m';

export const wakeSignal = defineSignal(WATCH_WAKE_SIGNAL);

/** The wakes a Watch has had since it last armed: set by the `wake` signal, from the workflow's start. */
export class Wakes {
  private woken = false;

  constructor() {
    setHandler(wakeSignal, () => {
      this.woken = true;
    });
  }

  /** Forgets earlier wakes: a wake from now on, even one during the read, ends the next wait. */
  arm(): void {
    this.woken = false;
  }

  /** Waits until woken or `ms` have passed (a durable timer). */
  async wait(ms: number): Promise<void> {
    await condition(() => this.woken, ms);
  }
}

/** Says how the Watch ended, in its current details. */
export function showOutcome(progress: OperationReporter, outcome: Outcome): Outcome {
  progress.observed(outcome.phase, [outcome.reason]);
  progress.finish(`${outcome.phase} (${outcome.reason})${outcome.exitCode !== undefined ? `, exit code ${outcome.exitCode}` : ''}`);
  return outcome;
}

/** The read's failure: a typed refusal (ErrReadOnly, ...) or cancellation is thrown; anything else is unanswered. */
const unansweredOr =
  (ref: OperationContext['ref']) =>
  (error: unknown): { unanswered: { problem: string } } => {
    const typed = isCancellation(error) ? undefined : fromFailure(error);
    const classified = classify(error, 0, 'ErrUnreachable', 'reading the watched TrainJob', ref);
    if (typed) throw classified;
    return { unanswered: { problem: classified.reasons[0] ?? 'no answer' } };
  };

export async function watchWoken(
  input: unknown,
  wakes: Wakes,
  { ref, config, progress }: OperationContext,
  carried: WatchCarried = {},
  holdFirstTask: FirstTaskOpen = keepFirstTaskOpen,
): Promise<Outcome> {
  const callMs = toMillis(parseGoDuration(config.timeouts.call)!);
  const recheck = config.timeouts.watchRecheck ?? DEFAULT_RECHECK;
  const recheckMs = toMillis(parseGoDuration(recheck)!);
  const check = proxyLocalActivities<Activities>({
    summary: ACTIVITY_LABELS.checkWatchedTrainJob,
    startToCloseTimeout: callMs,
    // One try: the workflow waits out a read that failed on its own durable timer.
    retry: { maximumAttempts: 1 },
  }).checkWatchedTrainJob;
  let { shown, unansweredSince, unanswered = 0 } = carried;
  for (let pass = 1; ; pass += 1) {
    wakes.arm();
    const answer = await check({ config, ref }).catch(unansweredOr(ref));
    // An answer in the run's first pass may be in its first workflow task (first-task-open.ts).
    if (pass === 1 && ('outcome' in answer || 'refused' in answer)) await holdFirstTask();
    let waitMs = recheckMs;
    if ('unanswered' in answer) {
      // The sandbox's Date is the workflow task's time, recorded with it and the same on replay.
      // eslint-disable-next-line no-restricted-globals
      unansweredSince ??= new Date().toISOString();
      waitMs = Math.min(recheckMs, FIRST_RETRY_MS * 2 ** Math.min(unanswered, 30));
      unanswered += 1;
    } else {
      unansweredSince = undefined;
      unanswered = 0;
      if ('refused' in answer) {
        progress.observed(answer.state.phase, answer.state.reasons);
        throw new DispatchError('ErrRejected', answer.refused, 0, ref);
      }
      if ('outcome' in answer) return showOutcome(progress, answer.outcome);
      shown = answer.state.phase;
      progress.observed(shown, answer.state.reasons);
    }
    const silence = unansweredSince === undefined ? '' : `; the API has not answered since ${unansweredSince}`;
    progress.waiting(`TrainJob ${ref.namespace}/${ref.name} to complete, fail or go (woken by its changes, read again every ${recheck} at least)${silence}`);
    const info = workflowInfo();
    if (info.continueAsNewSuggested || info.historyLength >= MAX_EVENTS) {
      await continueAsNew<(input: unknown, carried?: WatchCarried) => Promise<Outcome>>(input, {
        ...(shown ? { shown } : {}),
        ...(unansweredSince ? { unansweredSince, unanswered } : {}),
      });
    }
    await wakes.wait(waitMs);
  }
}
