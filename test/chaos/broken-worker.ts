// A worker broken on purpose, for the chaos run's own test (test/integration/chaos/broken-worker.test.ts):
// the product's worker with an activity interceptor added after dispatch's own, chosen by
// DISPATCH_CHAOS_BROKEN. The product is not touched: worker-process.ts loads this module's
// `activityInterceptors` when DISPATCH_RELIABILITY_INTERCEPTORS names it.
//
//   starts-refused  every Start refused ErrUnsupported at step 1, as a worker that believed its start
//                   gate unproven would (its prepareStart throws the refusal); the probe is left alone
//   watch-silent    every Watch's read of its TrainJob hangs until it is cancelled: no Watch ever answers
//   no-worker-copies  step 5 makes the runtime copy on the manager only, as a product that forgot
//                   MultiKueue's worker clusters would (its input's kueue.multiKueue taken out):
//                   for the MultiKueue run (--multikueue), where Trainer on the worker cluster then
//                   finds no runtime for the job Kueue sends there
import { fileURLToPath } from 'node:url';
import { Context } from '@temporalio/activity';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { toApplicationFailure } from '../../src/model/error-failures.js';
import { DispatchError } from '../../src/model/errors.js';

export const BROKEN = ['starts-refused', 'watch-silent', 'no-worker-copies'] as const;
export type Broken = (typeof BROKEN)[number];

const MODULE = fileURLToPath(import.meta.url);
const ENV = 'DISPATCH_CHAOS_BROKEN';

/** The environment that makes a worker process (worker-process.ts) load this module, broken as `broken` says. */
export const brokenWorkerEnv = (broken: Broken): Record<string, string> => ({ DISPATCH_RELIABILITY_INTERCEPTORS: MODULE, [ENV]: broken });

/** Watch's reads of its TrainJob: the short local one (patch watch-woken) and the older long one. */
const WATCH_READS: ReadonlySet<string> = new Set(['checkWatchedTrainJob', 'watchTrainJob']);

/** Step 5's activities: its own (createRuntimeCopy, whose input names the Kueue settings) and the fold of steps 2 and 5 (readRuntimeThenCopy, the whole configuration). */
const STEP_5: ReadonlySet<string> = new Set(['createRuntimeCopy', 'readRuntimeThenCopy']);

type KueueSettings = { multiKueue?: unknown } & Record<string, unknown>;
const withoutWorkers = (kueue: KueueSettings | undefined) => {
  if (!kueue) return kueue;
  const { multiKueue: _workers, ...rest } = kueue;
  return rest;
};

/** Step 5's input without the worker clusters: the copy goes to the manager alone. */
function forgetWorkerClusters(activityType: string, arg: Record<string, unknown>): Record<string, unknown> {
  if (activityType === 'createRuntimeCopy') return { ...arg, kueue: withoutWorkers(arg.kueue as KueueSettings | undefined) };
  const config = arg.config as { kueue?: KueueSettings } & Record<string, unknown>;
  return { ...arg, config: { ...config, kueue: withoutWorkers(config.kueue) } };
}

const breaks = (broken: string | undefined): ActivityInterceptorsFactory => () => ({
  inbound: {
    async execute(input, next) {
      const { activityType, workflowType } = Context.current().info;
      if (broken === 'starts-refused' && activityType === 'prepareStart' && workflowType === 'StartTrainJob') {
        throw toApplicationFailure(new DispatchError('ErrUnsupported', ['start: refused by a worker broken on purpose (test/chaos/broken-worker.ts)'], 1));
      }
      // Never answers; a cancellation (the activity's timeout) rejects it, and the Watch reads again.
      if (broken === 'watch-silent' && WATCH_READS.has(activityType)) return Context.current().cancelled;
      if (broken === 'no-worker-copies' && STEP_5.has(activityType)) {
        const [arg, ...rest] = input.args as [Record<string, unknown>, ...unknown[]];
        return next({ ...input, args: [forgetWorkerClusters(activityType, arg), ...rest] });
      }
      return next(input);
    },
  },
});

export const activityInterceptors: ActivityInterceptorsFactory[] = [breaks(process.env[ENV])];
