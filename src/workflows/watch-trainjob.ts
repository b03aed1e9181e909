// WatchTrainJob(TrainJobRef) -> Outcome (docs/contract.md §9): waits until the TrainJob has
// completed, failed or gone, and answers how it ended, with the exit code of its first failed node
// container. The waiting is one heartbeating activity with batched checks (watch-activities.ts);
// it returns when the phase changes, so the workflow sets DispatchPhase as it learns it, and after
// an hour, so a long Watch's history stays a few events an hour (and continues as new when long).
import { continueAsNew, workflowInfo } from '@temporalio/workflow';
import type { Outcome, Phase } from '../model/lifecycle.js';
import { WATCH_SLICE_MS } from './lifecycle-proxies.js';
import { classifyOperationCall } from './operation-failures.js';
import { runOperation } from './run-operation.js';

/** Checks between two calls of the Watch activity, as its details say. */
const CHECKED_EVERY = 'checked every 3 s';

export function WatchTrainJob(input: unknown): Promise<Outcome> {
  return runOperation('watch', input, async ({ ref, config, calls, progress }) => {
    let shown: Phase | undefined;
    for (;;) {
      progress.waiting(`TrainJob ${ref.namespace}/${ref.name} to complete, fail or go (${CHECKED_EVERY})`);
      const answer = await calls
        .watchTrainJob({ config, ref, sliceMs: WATCH_SLICE_MS, ...(shown ? { shownPhase: shown } : {}) })
        .catch(classifyOperationCall('the TrainJob to be watched', ref));
      if ('outcome' in answer) {
        const { outcome } = answer;
        progress.observed(outcome.phase, [outcome.reason]);
        progress.finish(`${outcome.phase} (${outcome.reason})${outcome.exitCode !== undefined ? `, exit code ${outcome.exitCode}` : ''}`);
        return outcome;
      }
      shown = answer.state.phase;
      progress.observed(shown, answer.state.reasons);
      if (workflowInfo().continueAsNewSuggested) await continueAsNew<typeof WatchTrainJob>(input);
    }
  });
}
