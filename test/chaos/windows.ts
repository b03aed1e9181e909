// How long after a part of the stack came back a refusal can still be that part's doing: the
// windows the chaos checker's rules use (justify.ts), each sized from a measurement of this stack,
// not from what makes a run pass. The run prints beside them what it measured itself (report.ts:
// each rule's latest refusal after its fault's recovery; the preflight probes' durations), so a
// window that turns out short shows as a number above its bound, and one that is far too wide too.
import type { Mode } from './schedule.js';
import { CHAOS_CALL_MS, CHAOS_WORKLOAD_MS } from './stack.js';

export interface Windows {
  /**
   * From a part's return to the product's first answer through it: one request's bound (5 s, the
   * stack's REQUEST_TIMEOUT_MS) plus the longest pause between two retries of an unanswered call
   * (5 s, the activities' maximumInterval). A worker killed in the middle of a call is noticed within
   * the same 10 s (lostWorkerMs: a quarter of CallBound, at most 10 s; the workflow task timeout 10 s).
   */
  answerMs: number;
  /**
   * The longest preflight (reach, write, then the probe Start through step 9 and its stop), per
   * mode: the ProbeBackend workflows' durations in the run's own Temporal (report.ts measures them
   * every run: probeDurations).
   */
  probeMs: Record<Mode, number>;
  /**
   * How long Trainer's (or Kueue's) TrainJob webhook can still deny a Start's own runtime copy as
   * "not found" after the API server or the controller came back: its informer reconnects with
   * client-go's backoff. Measured by test/reliability/apiserver-outage.test.ts against the real
   * Trainer: denials for 11 s after the API server was back (CI at 801b761), up to 45 s at first,
   * 77 s in one local run of 2026-12-02 after the file's earlier outages had grown the backoff
   * (docs/reliability.md), so 80 s.
   */
  webhookLagMs: number;
  /** The pause after a preflight that left a gate unproven, before the next one (docs/contract.md §8: 5 s). */
  preflightRetryMs: number;
  /** A probe's own bound (docs/contract.md §8: timeouts.workload + 8 × timeouts.call): its objects may stay that long. */
  probeBoundMs: number;
}

/**
 * The run's windows. The probe's: the ProbeBackend workflows of the short schedule of 2026-12-04
 * (seed 20261201, two shared cores): Kueue mode 5 probes, p50 3.1 s, max 38.4 s (one caught by the
 * faults, waiting for its Workload), so 40 s; plain mode 3 probes, max 3.6 s, plus a fault's first
 * answer (10 s) for one that rides a fault out, rounded up to 20 s. The time a probe ran on after
 * the last fault it rode out was back (refusals.ts probeFigures, since): at most 3.5 s Kueue, 1.0 s
 * plain, in a later run; left as they are until more runs say how far down they may go.
 * docs/reliability.md, "The refusal windows".
 */
export const CHAOS_WINDOWS: Windows = {
  answerMs: 10_000,
  probeMs: { plain: 20_000, kueue: 40_000 },
  webhookLagMs: 80_000,
  preflightRetryMs: 5_000,
  probeBoundMs: CHAOS_WORKLOAD_MS + 8 * CHAOS_CALL_MS,
};
