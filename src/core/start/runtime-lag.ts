// Trainer's and Kueue's TrainJob webhooks look the runtime up in their informer caches, which lag
// the API server: a TrainJob created right after its runtime copy (step 6 after step 5) can be
// denied although the copy exists, and is admitted a moment later. Seen under load: Trainer's
// `validator.trainjob.trainer.kubeflow.org` ("<copy>" not found: specified trainingRuntime must be
// created before the TrainJob is created) in npm test's 50 Starts at once, Kueue's `vtrainjob.kb.io`
// (runtime '<copy>' not found) in 12 of the bench's 1,000 Starts.
// After an API server outage the lag is longer: the webhooks' informers reconnect with client-go's
// backoff (0.8 s doubling, jittered), and Trainer denied such creates for more than 10 s after the
// API server answered again (test/reliability/apiserver-outage.test.ts). Such a denial of the
// TrainJob on this Start's own copy is tried again for the create's CallBound less one request's
// bound (at least half of CallBound). A webhook still denying our own copy at the end of that has
// not refused the TrainJob: the copy exists, the webhook cannot see it yet. So that is the retryable
// ErrUnreachable, not ErrRejected, and the copy stays for the retried Start of the attempt, which
// adopts it at step 5. (After a restart of both the API server and Trainer, Trainer denied so for
// longer than a 30 s CallBound in the 1,000-lifecycle chaos run.) Any other refusal is final.
// Two limits (docs/contract.md §6a): a webhook that still does not see a copy older than
// timeouts.runtimeLag has a cause that will not pass, so the Start is refused (ErrRejected) and the
// caller stops retrying; and when a create of this attempt went unanswered before the denials, the
// TrainJob may exist behind them (a webhook denies before the API server would answer 409), so
// the answer is the TrainJob found by name and token, or ErrOutcomeUnknown, never ErrUnreachable.

/** The reason Trainer v2.3.0's TrainJob validator gives when the runtime is not in its cache. */
export const RUNTIME_NOT_YET_SEEN = 'specified trainingRuntime must be created before the TrainJob is created';

/** How long step 6 waits before its first create again after such a denial; each wait doubles, up to the maximum. */
export const RUNTIME_LAG_PAUSE_MS = 300;
export const RUNTIME_LAG_MAX_PAUSE_MS = 2_000;

/** How long, from the create activity's start, step 6 goes on creating again: CallBound less one request's bound, at least half of CallBound. */
export const runtimeLagBudgetMs = (callMs: number, requestTimeoutMs: number) => Math.max(Math.floor(callMs / 2), callMs - requestTimeoutMs);

/** The pause before the create that follows the `denials`-th such denial (1-based). */
export const runtimeLagPauseMs = (denials: number) =>
  Math.min(RUNTIME_LAG_MAX_PAUSE_MS, RUNTIME_LAG_PAUSE_MS * 2 ** Math.max(0, denials - 1));

/** Kueue v0.19.2's TrainJob webhook (pkg/controller/jobs/trainjob) when the runtime is not in its cache. */
export const kueueRuntimeNotFound = (copyName: string) => `runtime '${copyName}' not found`;

/** Whether a definite refusal of the TrainJob create is a webhook not having seen `copyName` yet. */
export function isRuntimeCacheLag(answer: { status: number; message: string }, copyName: string): boolean {
  if (answer.status !== 403) return false;
  const trainers = answer.message.includes(RUNTIME_NOT_YET_SEEN) && answer.message.includes(`"${copyName}" not found`);
  return trainers || answer.message.includes(kueueRuntimeNotFound(copyName));
}

/** The reason of a step 6 that ended with the webhook still denying our copy after `denials` creates. */
export const runtimeStillUnseen = (what: string, copyName: string, denials: number, answer: string) =>
  `${what}: the webhook still does not see runtime copy ${copyName}, which exists, after ${denials} denial(s) (its cache lags the API server; retry the Start): ${answer}`;

/** What step 6 answers when the webhook has denied this Start's copy for its whole budget. */
export type LagEnd = 'ErrUnreachable' | 'ErrRejected' | 'find-trainjob';

/**
 * The end of step 6's retries of a webhook's lag: a create of this attempt that went unanswered may
 * have landed, hidden behind the denials, so the TrainJob is looked for (adopted if it carries the
 * token, else ErrOutcomeUnknown); a copy older than timeouts.runtimeLag is ErrRejected (its age
 * unknown: not older); else the retryable ErrUnreachable.
 */
export function lagEnd(input: { earlierCreateUnanswered: boolean; copyAgeMs: number | undefined; runtimeLagMs: number }): LagEnd {
  if (input.earlierCreateUnanswered) return 'find-trainjob';
  if (input.copyAgeMs !== undefined && input.copyAgeMs >= input.runtimeLagMs) return 'ErrRejected';
  return 'ErrUnreachable';
}

/** The reason of a step 6 refused because the webhook never saw a copy older than timeouts.runtimeLag. */
export const runtimeNeverSeen = (what: string, copyName: string, ageSeconds: number, runtimeLag: string, answer: string) =>
  `${what}: the webhook still does not see runtime copy ${copyName} after ${ageSeconds}s, longer than timeouts.runtimeLag (${runtimeLag}): this will not pass by retrying: ${answer}`;
