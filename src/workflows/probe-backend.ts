// ProbeBackend() -> BackendGates (docs/contract.md §8): proves reach, write and start, in order. The start
// gate is the preflight probe (docs/start.md): a Start like any other, on probeRuntime, with a node selector
// no node matches, stopped as soon as it has been started.
import { isCancellation, uuid4, workflowInfo } from '@temporalio/workflow';
import { Probe } from '../model/constants.js';
import { DispatchError } from '../model/errors.js';
import type { BackendGates } from '../model/results.js';
import { attemptToken } from '../core/names.js';
import { probeJobId, probeRequest } from '../core/probe.js';
import { activitiesFor, getSettings } from './activity-proxies.js';
import { classify } from './failures.js';
import { ProgressReporter } from './progress.js';
import { runStart } from './run-start.js';

/** The reasons of a failed gate, each prefixed by the gate, as step 1 of Start reports them. */
function reasonsOf(gate: string, error: unknown, step: number): string[] {
  if (isCancellation(error)) throw error;
  const typed = error instanceof DispatchError ? error : classify(error, step, 'ErrUnreachable', 'no answer');
  return typed.reasons.map((r) => `${gate}: ${r}`);
}

export async function ProbeBackend(): Promise<BackendGates> {
  const progress = new ProgressReporter('ProbeBackend');
  const { config } = await getSettings();
  const acts = activitiesFor(config);
  const namespace = config.namespace;
  const reasons: string[] = [];
  let reach = false;
  let write = false;
  let start = false;

  try {
    await acts.checkReach();
    reach = true;
  } catch (error) {
    reasons.push(...reasonsOf('reach', error, 1));
  }

  if (reach) {
    try {
      const review = await acts.checkWrite({ namespace });
      reasons.push(...review.reasons);
      write = review.reasons.length === 0;
    } catch (error) {
      reasons.push(...reasonsOf('write', error, 1));
    }
  }

  if (write) {
    try {
      // A JobID of this run's own (drawn once, replayed from the history): no two probes share names.
      const probe = probeRequest(config, probeJobId(uuid4()));
      const started = await runStart(probe, config, progress, { probe: true });
      const token = attemptToken(namespace, started.name, Probe.attempt);
      await acts.stopTrainJob({ namespace, name: started.name, token, trainJobUid: started.uid, ownerSet: true, step: 0 });
      start = true;
    } catch (error) {
      reasons.push(...reasonsOf('start', error, 0));
    }
  }

  progress.finish(start ? 'all gates proven' : `not proven: ${reasons.join('; ')}`);
  return { reach, write, start, reasons, checkedAt: workflowInfo().runStartTime.toISOString() };
}
