// How each workflow type moves between builds under Temporal's worker deployment versioning
// (docs/versioning.md): part of the contract, as every run's versioning behavior is recorded in
// its history. Free of Temporal's types so the Go client and the docs can read it as plain data.
//
// PINNED: a run stays on the build that began it, so a new build may change its code without a
// patch; its build drains as the run ends. Start, the probe, capabilities and the operations end
// within minutes.
//
// AUTO_UPGRADE: WatchTrainJob, which waits for days, moves to the current build at its next
// workflow task, so the old build can drain. The contract asks for a move at continue-as-new
// (pinned, then `initialVersioningBehavior: 'AUTO_UPGRADE'`); the Temporal server of the dev stack
// (1.29.1, CLI 1.5.1) keeps a continued run on its pinned build and never sets
// targetWorkerDeploymentVersionChanged (measured; docs/versioning.md), so a Watch upgrades at its
// next task instead, and a change of Watch's code still needs a patch.
import type { WorkflowType } from './names.js';

export type VersioningBehavior = 'PINNED' | 'AUTO_UPGRADE';

export const VERSIONING_BEHAVIORS = {
  StartTrainJob: 'PINNED',
  TrainJobCapabilities: 'PINNED',
  ProbeBackend: 'PINNED',
  OpenTrainJob: 'PINNED',
  HoldTrainJob: 'PINNED',
  ReleaseTrainJob: 'PINNED',
  StopTrainJob: 'PINNED',
  WatchTrainJob: 'AUTO_UPGRADE',
} as const satisfies Record<WorkflowType, VersioningBehavior>;

/** What a versioned worker gives a workflow that declares none (every type above declares its own). */
export const DEFAULT_VERSIONING_BEHAVIOR: VersioningBehavior = 'PINNED';
