// Step 9 in Kueue mode: one heartbeating activity that checks every second, up to
// timeouts.workload, for the TrainJob's Workload to exist, carry dispatch's gate and list the
// admission check (docs/contract.md §7: one activity, so a Start's history stays small however long it waits).
// Time the checks go unanswered does not count against timeouts.workload, up to CallBound
// (core/start/workload-wait.ts).
import { Context } from '@temporalio/activity';
import type { Config } from '../model/config.js';
import { toMillis, parseGoDuration } from '../model/duration.js';
import { DispatchError } from '../model/errors.js';
import type { TrainJobRef } from '../model/operations.js';
import type { Workload } from '../model/kube.js';
import { checkWorkload } from '../core/start/workload-check.js';
import { afterCheck, creditedSeconds, startWaitClock, waitLeft, type WaitClock } from '../core/start/workload-wait.js';
import { sleepOrWake } from './context.js';
import { describeRefusal } from '../kube/call.js';
import type { WorkloadChecks } from '../kube/workload-checks.js';

export const WORKLOAD_POLL_MS = 1_000;

interface WaitProgress {
  /** Epoch ms by which the Workload must be right; kept across retries of the activity. */
  deadline: number;
  /** Ms of unanswered checks added to the deadline so far (absent in a heartbeat from before it was kept). */
  credited?: number;
  /** Epoch ms of the first unanswered check of an outage still going on, so a retried attempt counts it on. */
  unansweredSince?: number;
  checks: number;
  reasons: string[];
}

/** `checks` is the worker's one WorkloadChecks, which batches the checks of every waiting Start. */
export function workloadActivities(checks: WorkloadChecks) {
  return {
    async waitForWorkload(input: { config: Config; ref: TrainJobRef }): Promise<{ workload: string; checks: number }> {
      const ctx = Context.current();
      const { config, ref } = input;
      const previous = ctx.info.heartbeatDetails as WaitProgress | undefined;
      const callBoundMs = toMillis(parseGoDuration(config.timeouts.call)!);
      const workload = config.timeouts.workload;
      let clock: WaitClock = previous
        ? { deadline: previous.deadline, credited: previous.credited ?? 0, unansweredSince: previous.unansweredSince }
        : startWaitClock(Date.now(), toMillis(parseGoDuration(workload)!));
      let made = previous?.checks ?? 0;
      let reasons: string[];
      // Whether the last check saw a Workload answer that decides (a Workload, or a definite refusal of the list).
      let seen: boolean;
      for (;;) {
        made += 1;
        const checkedAt = Date.now();
        const answer = await checks
          .check(ref.namespace, config.kueue.workloadVersion, ref.uid, ctx.cancellationSignal)
          .catch((error: Error) => error);
        clock = afterCheck(clock, checkedAt, !(answer instanceof Error), callBoundMs);
        seen = !(answer instanceof Error) && (answer.answered === 'definite' || answer.value !== undefined);
        if (answer instanceof Error) reasons = [answer.message];
        else if (answer.answered === 'definite') reasons = [`listing Workloads: ${describeRefusal(answer)}`];
        else {
          const found: Workload | undefined = answer.value;
          reasons = checkWorkload(found, ref.uid, config);
          if (reasons.length === 0) return { workload: found?.metadata?.name ?? '', checks: made };
        }
        // The last check falls at the deadline itself, so a Workload that appears in the final
        // second of timeouts.workload is still seen.
        const left = waitLeft(clock, Date.now(), callBoundMs);
        if (left <= 0) break;
        ctx.heartbeat({ ...clock, checks: made, reasons } satisfies WaitProgress);
        // The next check comes after the interval, or as soon as the worker's watch sees the Workload change.
        const interval = Math.min(WORKLOAD_POLL_MS, left);
        await sleepOrWake(interval, [checks.changeOf(ref.namespace, config.kueue.workloadVersion, ref.uid, interval)]);
      }
      const outage = creditedSeconds(clock, Date.now(), callBoundMs);
      const within = outage > 0 ? `${workload} (and ${outage}s more while the API did not answer)` : workload;
      throw new DispatchError(
        'ErrRejected',
        [`the Workload of TrainJob ${ref.namespace}/${ref.name} was not right within ${within}`, ...reasons],
        9,
        ref,
        // No Workload at all by the deadline is Kueue's silence, not its refusal (docs/contract.md §8).
        { definite: seen },
      );
    },
  };
}
