// Kubernetes calls log through the running activity's context logger (src/observability/kube-log.ts):
// the lookup of that logger lives here, with the activities, so that src/kube, which makes the
// calls, loads nothing of Temporal.
import { Context } from '@temporalio/activity';
import { logKubeCallsTo } from '../observability/kube-log.js';

/** The context logger of the activity running now; undefined outside an activity (Context.current throws). */
function currentActivityLogger() {
  try {
    return Context.current().log;
  } catch {
    return undefined;
  }
}

export function logKubeCallsToActivities(): void {
  logKubeCallsTo(currentActivityLogger);
}
