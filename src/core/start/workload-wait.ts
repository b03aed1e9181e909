// Step 9's clock: timeouts.workload bounds how long Kueue may take to make the Workload right, not
// how long the API server was away. A Workload check that goes unanswered is an outage like any
// other call's (docs/errors.md: retried until CallBound), so the time from the first unanswered
// check to the next answered one is added to the deadline, up to CallBound in all over the wait.
// With every check answered, the wait ends at timeouts.workload as before.

export interface WaitClock {
  /** Epoch ms by which the Workload must be right, with the outage time credited so far. */
  deadline: number;
  /** Ms already added to the deadline for unanswered checks; never more than CallBound. */
  credited: number;
  /** Epoch ms of the first unanswered check of the current outage; absent while checks are answered. */
  unansweredSince?: number;
}

export function startWaitClock(now: number, workloadMs: number): WaitClock {
  return { deadline: now + workloadMs, credited: 0 };
}

/** The credit the current outage would earn if it ended at `now`. */
function pendingCredit(clock: WaitClock, now: number, callBoundMs: number): number {
  if (clock.unansweredSince === undefined) return 0;
  return Math.max(0, Math.min(now - clock.unansweredSince, callBoundMs - clock.credited));
}

/** The clock after a check made at `checkedAt`, answered (definitely or with a list) or not. */
export function afterCheck(clock: WaitClock, checkedAt: number, answered: boolean, callBoundMs: number): WaitClock {
  if (!answered) return clock.unansweredSince === undefined ? { ...clock, unansweredSince: checkedAt } : clock;
  if (clock.unansweredSince === undefined) return clock;
  const credit = pendingCredit(clock, checkedAt, callBoundMs);
  return { deadline: clock.deadline + credit, credited: clock.credited + credit };
}

/** Ms left before the wait ends at `now`, counting the current outage as far as CallBound allows. */
export function waitLeft(clock: WaitClock, now: number, callBoundMs: number): number {
  return clock.deadline + pendingCredit(clock, now, callBoundMs) - now;
}

/** Whole seconds of outage the wait did not count, once it is over (for the refusal's reasons). */
export function creditedSeconds(clock: WaitClock, now: number, callBoundMs: number): number {
  return Math.round((clock.credited + pendingCredit(clock, now, callBoundMs)) / 1000);
}
