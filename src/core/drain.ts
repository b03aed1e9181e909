// How long a worker told to stop (SIGTERM, SIGINT) drains (docs/contract.md §10, docs/deploy.md
// "Drain and readiness"): it stops polling at once, lets the activities it holds finish within the grace, then
// cancels what is left; past the force time it gives up on them and exits.
//
// The longest activity a worker holds is Start's step-9 Workload wait: its start-to-close timeout is
// timeouts.workload + 2 × CallBound (src/workflows/activity-proxies.ts: the wait, the outage time it
// credits, up to CallBound, and its last check, up to CallBound more). Every other call is bounded by
// CallBound. So a grace of that plus a margin lets every activity end by itself: none is cancelled
// by a rollout. (A Watch recorded before Watch held no activity may still run one long slice; it
// heartbeats its progress and resumes on the next worker when cancelled, as before.)
import type { Config } from '../model/config.js';
import { parseGoDuration, toMillis } from '../model/duration.js';

/** Added to the longest activity's bound: the activity's own last heartbeat and its completion's trip to Temporal. */
export const DRAIN_MARGIN_MS = 10_000;
/** After the grace, activities are cancelled; this long after that the worker gives up on them and exits. */
export const FORCE_AFTER_GRACE_MS = 10_000;
/**
 * Between the forced end and the kubelet's SIGKILL: closing the connections and servers. A pod's
 * terminationGracePeriodSeconds is at least grace + FORCE_AFTER_GRACE_MS + this (podTerminationGraceSeconds).
 */
export const EXIT_MARGIN_MS = 10_000;

const ms = (duration: string) => toMillis(parseGoDuration(duration)!);

/** The start-to-close bound of the longest activity: step 9's Workload wait. */
export function longestActivityMs(timeouts: Pick<Config['timeouts'], 'workload' | 'call'>): number {
  return ms(timeouts.workload) + 2 * ms(timeouts.call);
}

export interface DrainTimes {
  /** How long in-flight activities may run after the stop before they are cancelled (the SDK's shutdownGraceTime). */
  graceMs: number;
  /** When the worker's process stops waiting for them and exits (cli/worker-command.ts). */
  forceMs: number;
  /** Whether timeouts.drain set the grace rather than the longest activity. */
  explicit: boolean;
  /** The longest activity's bound, for a warning when an explicit grace is shorter. */
  longestActivityMs: number;
}

export function drainTimes(timeouts: Pick<Config['timeouts'], 'workload' | 'call' | 'drain'>): DrainTimes {
  const longest = longestActivityMs(timeouts);
  const graceMs = timeouts.drain !== undefined ? ms(timeouts.drain) : longest + DRAIN_MARGIN_MS;
  return { graceMs, forceMs: graceMs + FORCE_AFTER_GRACE_MS, explicit: timeouts.drain !== undefined, longestActivityMs: longest };
}

/** The pod's terminationGracePeriodSeconds that covers the drain (the Helm chart computes the same). */
export function podTerminationGraceSeconds(timeouts: Pick<Config['timeouts'], 'workload' | 'call' | 'drain'>): number {
  return Math.ceil((drainTimes(timeouts).forceMs + EXIT_MARGIN_MS) / 1000);
}
