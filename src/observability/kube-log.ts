// One log line per Kubernetes call, through the logger of the activity running it, so that it
// carries the workflow id, run id and activity type of the Start it belongs to (the Runtime logger
// writes it as JSON). A success is debug; a definite refusal is info; a call that went unanswered,
// and will be retried, is warn. Outside an activity (the CLI's render) nothing is logged. src/kube
// calls this and knows nothing of Temporal: the worker's activities say where the logger is
// (src/activities/kube-call-log.ts).

export type KubeCallOutcome =
  | { outcome: 'ok' }
  | { outcome: 'definite'; status: number; reason: string }
  | { outcome: 'unanswered'; detail: string };

type Log = (message: string, fields: Record<string, unknown>) => void;

/** The logger of the activity running now, or undefined outside one. */
export type CurrentLogger = () => { debug: Log; info: Log; warn: Log } | undefined;

let activityLogger: CurrentLogger = () => undefined;

/** Where logKubeCall finds the running activity's logger; set once per worker. */
export function logKubeCallsTo(current: CurrentLogger): void {
  activityLogger = current;
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
