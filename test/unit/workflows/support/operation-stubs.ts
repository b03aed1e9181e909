// Stubbed activities for running the real operation workflows (Open, Hold, Release, Stop, Watch)
// without a cluster: a tiny API server of one TrainJob and one Workload that applies the planned
// JSON patches as the real one does (a failed `test` leaves the object unchanged), bumps the
// resourceVersion of what it changes, and records every call. Behaviours make a call unanswered or
// make another writer change the object first.
import type { Activities } from '../../../../src/activities/index.js';
import type { WatchAnswer } from '../../../../src/activities/watch-activities.js';
import type { WatchCheck } from '../../../../src/activities/watch-check.js';
import { applyJsonPatch, JsonPatchError } from '../../../support/json-patch.js';
import { validateTrainJobRef } from '../../../../src/core/operations/validate-ref.js';
import type { Config } from '../../../../src/model/config.js';
import { DispatchError } from '../../../../src/model/errors.js';
import { toApplicationFailure } from '../../../../src/model/error-failures.js';
import type { TrainJob, Workload } from '../../../../src/model/kube.js';
import { unanswered, PROVEN } from './start-stubs.js';

export const OPERATION_ACTIVITIES = ['prepareOperation', 'observeTrainJob', 'applyWrite', 'deleteTrainJob', 'watchTrainJob', 'checkWatchedTrainJob'] as const;
export type OperationActivity = (typeof OPERATION_ACTIVITIES)[number];
type Stubs = Pick<Activities, OperationActivity>;

export interface FakeServer {
  trainJob?: TrainJob;
  workload?: Workload;
}

export interface OperationStubs {
  activities: Stubs;
  server: FakeServer;
  calls: { name: OperationActivity; input: unknown }[];
  count(name: OperationActivity): number;
}

export interface OperationBehaviour {
  /** Every observe goes unanswered. */
  observeUnanswered?: boolean;
  /** Before each of the first `n` writes, another writer bumps the object's resourceVersion. */
  racedWrites?: number;
  /** The first `n` writes land, but their answer is lost: the call goes unanswered. */
  lostAnswers?: number;
  /** Watch's answers, one per call, in order (the Watch activity of runs begun before the patch watch-woken). */
  watchAnswers?: WatchAnswer[];
  /** A woken Watch's reads (checkWatchedTrainJob), one per call, in order. */
  watchChecks?: WatchCheck[];
}

const bump = <T extends { metadata?: { resourceVersion?: string } }>(object: T): T => ({
  ...object,
  metadata: { ...object.metadata, resourceVersion: String(Number(object.metadata?.resourceVersion ?? '0') + 1) },
});

export function operationStubs(config: Config, server: FakeServer, behave: OperationBehaviour = {}): OperationStubs {
  const calls: OperationStubs['calls'] = [];
  let raced = 0;
  let lost = 0;
  let watched = 0;
  let checked = 0;
  const record = (name: OperationActivity, input: unknown) => calls.push({ name, input: structuredClone(input) });
  const activities: Stubs = {
    prepareOperation: async (input) => {
      record('prepareOperation', input);
      try {
        return { settings: { config, gates: PROVEN }, ref: validateTrainJobRef(input) };
      } catch (error) {
        // As the worker's typedFailures does (src/activities/index.ts).
        throw error instanceof DispatchError ? toApplicationFailure(error) : error;
      }
    },
    observeTrainJob: async (input) => {
      record('observeTrainJob', input);
      if (behave.observeUnanswered) throw unanswered('observeTrainJob (stubbed)');
      return structuredClone({
        ...(server.trainJob ? { trainJob: server.trainJob } : {}),
        ...(server.workload && config.mode === 'kueue' ? { workload: server.workload } : {}),
      });
    },
    applyWrite: async (input) => {
      record('applyWrite', input);
      const key = input.write.kind === 'TrainJob' ? 'trainJob' : 'workload';
      const current = server[key];
      if (current === undefined) return { applied: false, why: `${input.write.summary}: HTTP 404 NotFound` };
      if (raced < (behave.racedWrites ?? 0)) {
        raced += 1;
        server[key] = bump(current) as never;
      }
      try {
        server[key] = bump(applyJsonPatch(server[key]!, input.write.patch)) as never;
        if (lost < (behave.lostAnswers ?? 0)) {
          lost += 1;
          throw unanswered('applyWrite (stubbed): the write landed, its answer was lost');
        }
        return { applied: true };
      } catch (error) {
        if (error instanceof JsonPatchError) return { applied: false, why: `${input.write.summary}: HTTP 422 Invalid` };
        throw error;
      }
    },
    deleteTrainJob: async (input) => {
      record('deleteTrainJob', input);
      const there = server.trainJob?.metadata.uid === input.ref.uid;
      if (there) delete server.trainJob;
      return { deleted: there };
    },
    watchTrainJob: async (input) => {
      record('watchTrainJob', input);
      const answer = behave.watchAnswers?.[watched++];
      if (!answer) throw new Error('watchTrainJob (stubbed): no answer left');
      return answer;
    },
    checkWatchedTrainJob: async (input) => {
      record('checkWatchedTrainJob', input);
      const answer = behave.watchChecks?.[checked++];
      if (!answer) throw new Error('checkWatchedTrainJob (stubbed): no answer left');
      return answer;
    },
  };
  return { activities, server, calls, count: (name) => calls.filter((c) => c.name === name).length };
}
