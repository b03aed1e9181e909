// Step 9 in Kueue mode: one heartbeating activity that checks every second, up to
// timeouts.workload, for the TrainJob's Workload to exist, carry dispatch's gate and list the
// admission check (docs/contract.md §7: one activity, so a Start's history stays small however long it waits).
import { Context } from '@temporalio/activity';
import type { Config } from '../model/config.js';
import { toMillis, parseGoDuration } from '../model/duration.js';
import { DispatchError, type ObjectRef } from '../model/errors.js';
import type { Workload } from '../model/kube.js';
import { checkWorkload } from '../core/start/workload-check.js';
import { sleepOrWake } from './context.js';
import { describeRefusal } from '../kube/call.js';
import type { WorkloadChecks } from '../kube/workload-checks.js';

export const WORKLOAD_POLL_MS = 1_000;

interface WaitProgress {
  /** Epoch ms by which the Workload must be right; kept across retries of the activity. */
  deadline: number;
  checks: number;
  reasons: string[];
}

/** `checks` is the worker's one WorkloadChecks, which batches the checks of every waiting Start. */
export function workloadActivities(checks: WorkloadChecks) {
  return {
    async waitForWorkload(input: { config: Config; ref: ObjectRef }): Promise<{ workload: string; checks: number }> {
      const ctx = Context.current();
      const { config, ref } = input;
      const previous = ctx.info.heartbeatDetails as WaitProgress | undefined;
      const deadline = previous?.deadline ?? Date.now() + toMillis(parseGoDuration(config.timeouts.workload)!);
      let made = previous?.checks ?? 0;
      let reasons: string[];
      for (;;) {
        made += 1;
        const answer = await checks
          .check(ref.namespace, config.kueue.workloadVersion, ref.uid, ctx.cancellationSignal)
          .catch((error: Error) => error);
        if (answer instanceof Error) reasons = [answer.message];
        else if (answer.answered === 'definite') reasons = [`listing Workloads: ${describeRefusal(answer)}`];
        else {
          const workload: Workload | undefined = answer.value;
          reasons = checkWorkload(workload, ref.uid, config);
          if (reasons.length === 0) return { workload: workload?.metadata?.name ?? '', checks: made };
        }
        // The last check falls at the deadline itself, so a Workload that appears in the final
        // second of timeouts.workload is still seen.
        const left = deadline - Date.now();
        if (left <= 0) break;
        ctx.heartbeat({ deadline, checks: made, reasons } satisfies WaitProgress);
        // The next check comes after the interval, or as soon as the worker's watch sees the Workload change.
        const interval = Math.min(WORKLOAD_POLL_MS, left);
        await sleepOrWake(interval, [checks.changeOf(ref.namespace, config.kueue.workloadVersion, ref.uid, interval)]);
      }
      throw new DispatchError(
        'ErrRejected',
        [`the Workload of TrainJob ${ref.namespace}/${ref.name} was not right within ${config.timeouts.workload}`, ...reasons],
        9,
        ref,
      );
    },
  };
}
