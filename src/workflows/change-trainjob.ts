// Open, Hold and Release (docs/contract.md §9): read the TrainJob (and its Workload), plan from what
// was read (src/core/operations/plans.ts), make the planned writes, read again, until the plan says
// done, absent or refuse. Every write tests the object's UID and resourceVersion, so a write on
// something that changed since it was read does nothing, and is planned again from a new read.
// Runs begun before the patch in run-operation.ts plan with the pre-patch plans, and give up on
// stale writes with ErrRejected; runs since, with the declarative plans, and ErrUnreachable (a lost
// race is retryable, docs/contract.md §9a). A Kueue-mode Hold that read its Workload writes it
// first (hold-order.ts, its patch retired).
import { sleep } from '@temporalio/workflow';
import { DispatchError } from '../model/errors.js';
import type { TrainJobState } from '../model/operations.js';
import { parseGoDuration, toMillis } from '../model/duration.js';
import { OPERATION_NAMES } from '../contract/names.js';
import type { TrainJobChange, OperationPlan } from '../core/operations/plan.js';
import { planOperation } from '../core/operations/plans.js';
import { planOperationPrePatch } from '../core/operations/plans-prepatch.js';
import { holdWritesWorkloadFirst } from './hold-order.js';
import { classifyOperationCall } from './operation-failures.js';
import type { OperationReporter } from './operation-progress.js';
import { runOperation } from './run-operation.js';

/** Writes that find the object changed, in a row, before the operation gives up (ErrUnreachable; ErrRejected before the patch). */
export const MAX_STALE_WRITES = 10;
/** How often a plan that waits (Kueue has not made the Workload yet) reads again. */
const WAIT_POLL_MS = 1_000;

export function changeTrainJob(op: TrainJobChange, input: unknown): Promise<TrainJobState> {
  return runOperation(op, input, async ({ ref, config, calls, progress, declarative }) => {
    // A Hold waits for Kueue's Workload at most as long as Start's step 9 would (timer count, no clock).
    const maxWaits = Math.ceil(toMillis(parseGoDuration(config.timeouts.workload)!) / WAIT_POLL_MS);
    let waits = 0;
    const stale: string[] = [];
    let resumed = false;
    for (;;) {
      progress.waiting(`TrainJob ${ref.namespace}/${ref.name} to be read`);
      const observed = await calls.observeTrainJob({ config, ref }).catch(classifyOperationCall('the TrainJob to be read', ref));
      const read = { ...observed, config };
      const plan: OperationPlan = declarative
        ? planOperation(op, ref, read, { resumed, workloadFirst: holdWritesWorkloadFirst(op, read) })
        : planOperationPrePatch(op, ref, read, { resumed });
      if (plan.kind === 'refuse') {
        if (declarative && plan.state) progress.observed(plan.state.phase, plan.state.reasons);
        throw new DispatchError('ErrRejected', plan.reasons, 0, ref);
      }
      progress.observed(plan.state.phase, plan.state.reasons);
      if (plan.kind === 'absent' || plan.kind === 'done') return finish(progress, plan.state);
      if (plan.kind === 'wait') {
        if (waits >= maxWaits) {
          return finish(progress, { ...plan.state, reasons: [...plan.state.reasons, ...plan.reasons] });
        }
        progress.waiting(plan.reasons.join('; '));
        waits += 1;
        await sleep(WAIT_POLL_MS);
        continue;
      }
      for (const write of plan.writes) {
        progress.waiting(write.summary);
        const answer = await calls
          .applyWrite({ write, workloadVersion: config.kueue.workloadVersion, ref, staleInARow: stale.length })
          .catch(classifyOperationCall(write.summary, ref));
        if (!answer.applied) {
          stale.push(answer.why);
          if (stale.length >= MAX_STALE_WRITES) {
            const type = declarative ? 'ErrUnreachable' : 'ErrRejected';
            throw new DispatchError(type, [`${OPERATION_NAMES[op]}: the objects kept changing under ${stale.length} writes`, ...stale.slice(-3)], 0, ref);
          }
          break;
        }
        stale.length = 0;
        resumed = true;
      }
    }
  });
}

function finish(progress: OperationReporter, state: TrainJobState): TrainJobState {
  progress.finish(`${state.phase}${state.held ? ' (held)' : ''}`);
  return state;
}
