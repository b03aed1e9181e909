// Watch (docs/contract.md §9): one heartbeating activity that checks a started TrainJob every few
// seconds until it has completed, failed or gone. Its checks share lists with every other check of
// the worker (batched-lists.ts), so 1,000 Watches cost a few API requests a second. It returns
// early when the phase changes, so the workflow can show it (DispatchPhase), and after a slice of
// time, so a retry or a new worker resumes from a recent point.
import { Context } from '@temporalio/activity';
import type { Config } from '../model/config.js';
import { Labels } from '../model/constants.js';
import { parseGoDuration, toMillis } from '../model/duration.js';
import { DispatchError } from '../model/errors.js';
import type { TrainJob, Workload } from '../model/kube.js';
import type { Outcome, Phase, Pod, TrainJobRef, TrainJobState } from '../model/lifecycle.js';
import { watchOutcome } from '../core/admission.js';
import { identityRefusals } from '../core/lifecycle-plans.js';
import { trimTrainJob, trimWorkload } from '../core/observed-trim.js';
import { stateOf, workloadOfTrainJob, type Observed } from '../core/phase.js';
import { untilChanged, type SharedLists } from './watched-lists.js';
import { callsFor, sleepOrWake, type ActivityEnv } from './context.js';
import { describeRefusal, type KubeAnswer } from './kube-call.js';
import { TRAINJOBS, workloads, type ObjectCalls } from './objects.js';

/** How often a Watch checks its TrainJob. */
export const WATCH_POLL_MS = 3_000;

export interface WatchInput {
  config: Config;
  ref: TrainJobRef;
  /** The phase the workflow last showed: a check that reads another returns at once. */
  shownPhase?: Phase;
  /** How long this call watches before it returns with the state, for the workflow to call again. */
  sliceMs: number;
}

export type WatchAnswer = { outcome: Outcome; checks: number } | { state: TrainJobState; checks: number };

interface WatchProgress {
  checks: number;
  phase?: Phase;
  reasons: string[];
}

const refused = (ref: TrainJobRef, reasons: string[]) => new DispatchError('ErrRejected', reasons, 0, ref);

export function watchActivities(env: ActivityEnv, lists: SharedLists) {
  /**
   * One check: the TrainJob and its Workload from the shared lists. Throws when a list goes
   * unanswered. A TrainJob missing from them is read by name before it counts as gone: the
   * worker's watch can be seconds behind the API server under load, and a Watch begun right after
   * Start found the new TrainJob missing from the watch-fed copy and answered Absent (the chaos
   * run, seed 1000); only the API server's own 404 says Absent.
   */
  async function observe(config: Config, ref: TrainJobRef, jobId: string, calls: ObjectCalls, signal: AbortSignal): Promise<Observed> {
    const ofJob = await lists.find(TRAINJOBS, ref.namespace, Labels.jobId, jobId, signal);
    if (ofJob.answered === 'definite') throw refused(ref, [`listing TrainJobs: ${describeRefusal(ofJob)}`]);
    const isOurs = (t: TrainJob) => t.metadata?.uid === ref.uid && t.metadata?.name === ref.name;
    let found = (ofJob.value as TrainJob[]).find(isOurs);
    if (found === undefined) {
      const read = await calls.get(TRAINJOBS, ref.namespace, ref.name);
      if (read.answered === 'definite' && read.status !== 404) {
        throw refused(ref, [`reading TrainJob ${ref.namespace}/${ref.name}: ${describeRefusal(read)}`]);
      }
      if (read.answered === 'ok' && isOurs(read.value as TrainJob)) found = read.value as TrainJob;
    }
    const trainJob = found && trimTrainJob(found);
    if (config.mode !== 'kueue' || trainJob === undefined) return trainJob ? { trainJob, config } : { config };
    const ofUid = await lists.find(workloads(config.kueue.workloadVersion), ref.namespace, Labels.kueueJobUid, ref.uid, signal);
    if (ofUid.answered === 'definite') throw refused(ref, [`listing Workloads: ${describeRefusal(ofUid)}`]);
    const workload = workloadOfTrainJob(ofUid.value as Workload[], ref.uid);
    return { trainJob, config, ...(workload ? { workload: trimWorkload(workload) } : {}) };
  }

  return {
    async watchTrainJob(input: WatchInput): Promise<WatchAnswer> {
      const ctx = Context.current();
      const { config, ref } = input;
      const calls = callsFor(env);
      const callMs = toMillis(parseGoDuration(config.timeouts.call)!);

      // The first read, by name: whether the operation may watch this TrainJob at all, and its job-id label.
      const first = await calls.get(TRAINJOBS, ref.namespace, ref.name);
      if (first.answered === 'definite' && first.status !== 404) {
        throw refused(ref, [`reading TrainJob ${ref.namespace}/${ref.name}: ${describeRefusal(first)}`]);
      }
      const read = first.answered === 'ok' ? trimTrainJob(first.value as TrainJob) : undefined;
      const refusals = identityRefusals('watch', ref, { trainJob: read, config });
      if (refusals.length > 0) throw refused(ref, refusals);
      const jobId = read?.metadata.labels?.[Labels.jobId];

      const sliceEnd = Date.now() + input.sliceMs;
      let checks = (ctx.info.heartbeatDetails as WatchProgress | undefined)?.checks ?? 0;
      let answeredAt = Date.now();
      let problem = '';
      for (;;) {
        checks += 1;
        let observed: Observed | undefined = { config };
        if (jobId !== undefined) {
          observed = await observe(config, ref, jobId, calls, ctx.cancellationSignal).catch((error: unknown) => {
            if (error instanceof DispatchError) throw error;
            problem = error instanceof Error ? error.message : String(error);
            return undefined;
          });
        }
        if (observed !== undefined) {
          answeredAt = Date.now();
          const observedAt = new Date().toISOString();
          let outcome = watchOutcome(ref, { ...observed, pods: [], observedAt });
          if (outcome?.phase === 'Failed' && observed.trainJob !== undefined && jobId !== undefined) {
            const pods = (await calls.listPods(ref.namespace, `${Labels.jobId}=${jobId}`)) as KubeAnswer<{ items?: Pod[] }>;
            if (pods.answered === 'ok') outcome = watchOutcome(ref, { ...observed, pods: pods.value.items ?? [], observedAt });
          }
          if (outcome) return { outcome, checks };
          const state = stateOf(ref, observed);
          if (state.phase !== input.shownPhase || Date.now() >= sliceEnd) return { state, checks };
          ctx.heartbeat({ checks, phase: state.phase, reasons: state.reasons } satisfies WatchProgress);
        } else {
          if (Date.now() - answeredAt >= callMs) {
            throw new DispatchError('ErrUnreachable', [`watching TrainJob ${ref.namespace}/${ref.name}: no answer within timeouts.call: ${problem}`], 0, ref);
          }
          ctx.heartbeat({ checks, reasons: [problem] } satisfies WatchProgress);
        }
        // The next check after the interval, or as soon as the worker's watch sees the TrainJob (or,
        // in Kueue mode, its Workload) change.
        const changes =
          jobId === undefined
            ? []
            : [
                untilChanged(lists, TRAINJOBS, ref.namespace, Labels.jobId, jobId, WATCH_POLL_MS),
                ...(config.mode === 'kueue'
                  ? [untilChanged(lists, workloads(config.kueue.workloadVersion), ref.namespace, Labels.kueueJobUid, ref.uid, WATCH_POLL_MS)]
                  : []),
              ];
        await sleepOrWake(WATCH_POLL_MS, changes);
      }
    },
  };
}
