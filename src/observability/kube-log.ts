// One log line per Kubernetes call, through the activity's context logger, so that it carries the
// workflow id, run id and activity type of the Start it belongs to (the Runtime logger writes it as
// JSON). A success is debug; a definite refusal is info; a call that went unanswered, and will be
// retried, is warn. Outside an activity (the CLI's render) nothing is logged.
import { Context } from '@temporalio/activity';

export type KubeCallOutcome =
  | { outcome: 'ok' }
  | { outcome: 'definite'; status: number; reason: string }
  | { outcome: 'unanswered'; detail: string };

function activityLogger() {
  try {
    return Context.current().log;
  } catch {
    return undefined;
  }
}

/** `what` is how src/kube/call.ts names a call: "<method> <object>", e.g. "create TrainJob ml/dj-x-s1". */
export function logKubeCall(what: string, result: KubeCallOutcome, startedAt: number): void {
  const log = activityLogger();
  if (!log) return;
  const space = what.indexOf(' ');
  const fields = {
    method: space < 0 ? what : what.slice(0, space),
    object: space < 0 ? '' : what.slice(space + 1),
    durationMs: Math.round(performance.now() - startedAt),
    ...result,
  };
  if (result.outcome === 'ok') log.debug('Kubernetes call answered', fields);
  else if (result.outcome === 'definite') log.info('Kubernetes call refused', fields);
  else log.warn('Kubernetes call unanswered', fields);
}
