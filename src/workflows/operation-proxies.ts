// Activity options of the operations after Start (docs/contract.md §9). Their reads and writes are
// local activities bounded by CallBound, as Start's are (activity-proxies.ts): an operation is a
// few short calls, and local ones cost no activity task round trip. Watch is one activity task that
// heartbeats with each check, so a worker lost mid-watch is noticed and another resumes it.
import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { Config } from '../model/config.js';
import { parseGoDuration, toMillis } from '../model/duration.js';
import { localKubeCalls, retry } from './activity-proxies.js';
import { ACTIVITY_LABELS } from '../core/start/steps.js';

export const prepareOperation = proxyLocalActivities<Activities>({
  summary: ACTIVITY_LABELS.prepareOperation,
  startToCloseTimeout: '10s',
}).prepareOperation;

/** How long one Watch call watches before it returns for the workflow to call again. */
export const WATCH_SLICE_MS = 60 * 60 * 1000;
/** A Watch that heartbeats every few seconds is lost when it stays silent this long. */
const WATCH_HEARTBEAT = '30s';

export function operationActivitiesFor(config: Config) {
  const callMs = toMillis(parseGoDuration(config.timeouts.call)!);
  const local = (summary: string) => localKubeCalls(summary, callMs);
  return {
    observeTrainJob: local(ACTIVITY_LABELS.observeTrainJob).observeTrainJob,
    applyWrite: local(ACTIVITY_LABELS.applyWrite).applyWrite,
    deleteTrainJob: local(ACTIVITY_LABELS.deleteTrainJob).deleteTrainJob,
    watchTrainJob: proxyActivities<Activities>({
      summary: ACTIVITY_LABELS.watchTrainJob,
      startToCloseTimeout: WATCH_SLICE_MS + 2 * callMs,
      heartbeatTimeout: WATCH_HEARTBEAT,
      // Unanswered checks are handled inside (ErrUnreachable after CallBound); a lost worker is retried.
      retry,
    }).watchTrainJob,
  };
}
