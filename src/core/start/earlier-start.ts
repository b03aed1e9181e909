// Step 5 of a Start whose same attempt already succeeded in an earlier run. The caller lost that
// run's answer (a Temporal restart, a dropped connection) and started the attempt again; the
// workflow id's policy starts a new run once the old one closed (docs/contract.md §1). The new run
// finds the runtime copy owned by the TrainJob the earlier run made, and seed 000 refuses an owned
// copy: that would answer ErrRejected for the caller's own finished work. So an owned copy is this
// attempt's own when the copy carries this attempt's token and the source runtime's spec, its one
// owner is the TrainJob of the same name, and that TrainJob carries this attempt's token and is
// still as Start leaves it (the read-back of step 8 would pass) and neither opened nor held
// (docs/contract.md §7). Then steps 6-9 adopt the TrainJob as they adopt any create of this attempt
// that landed. A TrainJob the caller took over (a held one still reads back as Start wrote it: the
// held annotation is one Start never wrote), or changed, is not adopted: step 5 is refused and
// nothing is touched. An adopted TrainJob is never deleted by the undo (undo-plan.ts).
import type { Config } from '../../model/config.js';
import { Trainer } from '../../model/constants.js';
import type { KubeObject, TrainerRuntime, TrainJob } from '../../model/kube.js';
import { attemptTokenOf } from './create-conflict.js';
import { deepEqual } from '../objects/deep-equal.js';
import { isBeingDeleted } from '../objects/deletion.js';
import { takenOverBy } from '../operations/facts.js';
import { compareReadBack } from './readback.js';

/** The owner an existing copy names when it is a candidate: this attempt's copy, owned by its TrainJob. */
export interface EarlierOwner {
  name: string;
  uid: string;
}

/**
 * The TrainJob that owns `existing` when the copy looks like this attempt's earlier, finished work:
 * this attempt's token, the wanted spec, one owner, a TrainJob of the copy's own name. Undefined
 * otherwise (another attempt's copy, someone else's, or changed): the seed's refusal stands as it is.
 */
export function earlierOwnerOf(existing: TrainerRuntime, wanted: TrainerRuntime): EarlierOwner | undefined {
  const token = attemptTokenOf(wanted);
  const owners = existing.metadata?.ownerReferences ?? [];
  if (token === undefined || attemptTokenOf(existing) !== token || owners.length !== 1) return undefined;
  if (!deepEqual(existing.spec, wanted.spec) || isBeingDeleted(existing)) return undefined;
  const [owner] = owners;
  const name = existing.metadata?.name;
  if (owner?.kind !== Trainer.trainJobKind || owner.name !== name || !owner.uid) return undefined;
  return { name: owner.name, uid: owner.uid };
}

/** What a retried Start needs of the configuration to tell whether the caller took a TrainJob over. */
export type StartGateConfig = Pick<Config, 'mode' | 'kueue'>;

/**
 * Why the TrainJob read by the owner's name is not the earlier run's finished Start of this
 * attempt; empty when it is (adopt the copy, and steps 6-9 adopt the TrainJob).
 */
export function earlierStartReasons(owner: EarlierOwner, found: KubeObject | undefined, wanted: TrainJob, config: StartGateConfig): string[] {
  const where = `TrainJob ${wanted.metadata.namespace ?? ''}/${owner.name}`;
  if (found === undefined) return [`its owner ${where} (uid ${owner.uid}) does not exist`];
  if (found.metadata?.uid !== owner.uid) return [`its owner ${where} has uid ${found.metadata?.uid ?? '(none)'}, not ${owner.uid}`];
  if (isBeingDeleted(found)) return [`its owner ${where} is being deleted`];
  const token = attemptTokenOf(wanted);
  if (attemptTokenOf(found) !== token) return [`its owner ${where} carries attempt token ${attemptTokenOf(found) ?? '(none)'}, not ${token}`];
  const takenOver = takenOverBy(found, config);
  const why = [...compareReadBack(wanted, found as TrainJob, config), ...(takenOver ? [`the caller has ${takenOver} it`] : [])];
  if (why.length === 0) return [];
  return [`its owner ${where} is this attempt's, but was opened or changed since it was started, so a retried Start does not adopt it: ${why.join('; ')}`];
}
