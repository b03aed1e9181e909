// ProbeBackend() -> BackendGates (docs/contract.md §8): proves reach, write and start, in order. The start
// gate is the preflight probe (docs/start.md): a Start like any other, on probeRuntime, with a node selector
// no node matches, stopped as soon as it has been started, or, when its Start ended with something
// perhaps made, stopped by name and attempt token (patch PROBE_STOPS_UNKNOWN, retired: docs/versioning.md).
import { CancellationScope, deprecatePatch, isCancellation, uuid4, workflowInfo } from '@temporalio/workflow';
import type { Config } from '../model/config.js';
import { Probe } from '../model/constants.js';
import { DispatchError, type ErrorType } from '../model/errors.js';
import type { BackendGates } from '../model/results.js';
import { attemptToken, trainJobName } from '../core/start/names.js';
import { probeJobId, probeRequest } from '../core/start/probe.js';
import { activitiesFor, getSettings, type StartActivities } from './activity-proxies.js';
import { classify } from './failures.js';
import { ProgressReporter } from './progress.js';
import { runStart } from './run-start.js';
import { PROBE_STOPS_UNKNOWN, WorkflowTypes } from '../contract/names.js';

/**
 * The mode and Kueue configuration the probe's undo is given, as Start's own undo is: with
 * kueue.multiKueue, the undo deletes the probe's runtime copy on every worker cluster too (by name
 * and token, only while unowned), rather than leaving it to the collector. Activity input only: the
 * same command (an activity's input is not compared on replay), so no patch.
 */
const undoConfig = (config: Config) => ({ mode: config.mode, kueue: config.kueue });

/** A failed gate's refusal: its reasons each prefixed by the gate, as step 1 of Start reports them. */
function refusalOf(gate: string, error: unknown, step: number): { reasons: string[]; definite: boolean } {
  if (isCancellation(error)) throw error;
  const typed = error instanceof DispatchError ? error : classify(error, step, 'ErrUnreachable', 'no answer');
  return { reasons: typed.reasons.map((r) => `${gate}: ${r}`), definite: typed.evidence.definite };
}

/** The refusals that can prove the start gate unproven; anything else (no answer) leaves it unknown (docs/contract.md §8). */
const DEFINITE: readonly string[] = ['ErrInvalid', 'ErrUnsupported', 'ErrRejected', 'ErrReadOnly'] satisfies ErrorType[];

/**
 * Whether the probe Start was definitely refused, rather than left without an answer: a refusal of
 * one of those types that a definite answer of the API decided (errors.ts, Evidence). A call at
 * steps 7 or 8 unanswered past CallBound, or no Workload within timeouts.workload, is ErrRejected
 * for a Start but proves nothing of the backend (a Kueue restart longer than the Workload wait did
 * it). Nor does a read-back that found the probe's own TrainJob gone: when a workflow task is lost
 * (Temporal unreachable as it completes), the next worker runs that task's local activities again,
 * and the first execution may have gone on to stop the probe.
 */
const isDefinite = (error: unknown): boolean => error instanceof DispatchError && DEFINITE.includes(error.type) && error.evidence.definite;

/** Whether a probe Start that failed so may have left something of this attempt's behind. */
function mayHaveMade(error: unknown): error is DispatchError {
  return (
    error instanceof DispatchError &&
    (error.step === 5 || error.step === 6) &&
    (error.type === 'ErrUnreachable' || error.type === 'ErrOutcomeUnknown')
  );
}

/**
 * Stops, by name and this attempt's token (no UIDs: the stop looks each object up and deletes it
 * only if it carries the token), whatever the failed probe Start may have made. Runs to its end even
 * if the workflow is cancelled meanwhile, and then rethrows that cancellation. Answers the reasons
 * of a stop that failed too.
 */
async function stopWhatMayExist(acts: StartActivities, input: { namespace: string; name: string; step: number; config: Config }): Promise<string[]> {
  const { namespace, name, step, config } = input;
  const token = attemptToken(namespace, name, Probe.attempt);
  let reasons: string[] = [];
  try {
    await CancellationScope.nonCancellable(() => acts.undoStart({ namespace, name, token, ownerSet: false, step, ...undoConfig(config) }));
  } catch (error) {
    reasons = classify(error, step, 'ErrOutcomeUnknown', `stopping TrainJob ${namespace}/${name}`).reasons.map((r) => `start: the stop failed too: ${r}`);
  }
  const scope = CancellationScope.current();
  if (scope.consideredCancelled) await scope.cancelRequested;
  return reasons;
}

export async function ProbeBackend(): Promise<BackendGates> {
  const progress = new ProgressReporter(WorkflowTypes.probe);
  const { config } = await getSettings();
  const acts = activitiesFor(config, progress.taskEnd);
  const namespace = config.namespace;
  const reasons: string[] = [];
  let reach = false;
  let write = false;
  let start = false;
  let startUnknown = false;

  let writeUnknown = false;

  try {
    await acts.checkReach();
    reach = true;
  } catch (error) {
    reasons.push(...refusalOf('reach', error, 1).reasons);
  }

  if (reach) {
    try {
      const review = await acts.checkWrite({ namespace });
      reasons.push(...review.reasons);
      write = review.reasons.length === 0;
    } catch (error) {
      // An unanswered SelfSubjectAccessReview leaves the write gate unknown, not refused (§8).
      const refusal = refusalOf('write', error, 1);
      reasons.push(...refusal.reasons);
      writeUnknown = !refusal.definite;
    }
  }

  if (write) {
    // A JobID of this run's own (drawn once, replayed from the history): no two probes share names.
    const probe = probeRequest(config, probeJobId(uuid4()));
    try {
      const started = await runStart(probe, config, progress, { probe: true });
      const token = attemptToken(namespace, started.name, Probe.attempt);
      await acts.undoStart({ namespace, name: started.name, token, trainJobUid: started.uid, ownerSet: true, step: 0, ...undoConfig(config) });
      start = true;
    } catch (error) {
      reasons.push(...refusalOf('start', error, 0).reasons);
      startUnknown = !isDefinite(error);
      // The start gate stays unproven either way; the stop only cleans up.
      if (mayHaveMade(error)) {
        // Retired (step 2): its marker, deprecated, where patched() asked. The probes that stopped
        // nothing replay against the build recorded before (test/histories/builds.json).
        deprecatePatch(PROBE_STOPS_UNKNOWN);
        const name = trainJobName(probe.request.job, probe.request.submission);
        reasons.push(...(await stopWhatMayExist(acts, { namespace, name, step: error.step, config })));
      }
    }
  }

  progress.finish(start ? 'all gates proven' : `not proven: ${reasons.join('; ')}`);
  const unknown = { ...(writeUnknown ? { writeUnknown } : {}), ...(startUnknown ? { startUnknown } : {}) };
  return { reach, write, start, reasons, checkedAt: workflowInfo().runStartTime.toISOString(), ...unknown };
}
