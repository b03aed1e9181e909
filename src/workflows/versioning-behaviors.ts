// Each workflow type declares its versioning behavior (contract/versioning.ts) where Temporal reads
// it: on the workflow function, before the worker registers it. Imported by index.ts for this effect.
// Only a versioned worker may send a behavior (an unversioned one's task completions are refused
// with it: "versioning behavior cannot be specified without deployment options"), so each run asks,
// once before its first call, whether the worker running it is a build of a deployment (an
// unversioned worker has a build id of its own, the bundle's, but no deployment name).
import { setWorkflowOptions, workflowInfo } from '@temporalio/workflow';
import { VERSIONING_BEHAVIORS } from '../contract/versioning.js';
import { TrainJobCapabilities } from './capabilities.js';
import { HoldTrainJob, OpenTrainJob, ReleaseTrainJob } from './open-hold-release.js';
import { ProbeBackend } from './probe-backend.js';
import { StartTrainJob } from './start-trainjob.js';
import { StopTrainJob } from './stop-trainjob.js';
import { WatchTrainJob } from './watch-trainjob.js';

// Every type of the table, by its name: one missing or misnamed fails to compile.
const workflows = { StartTrainJob, TrainJobCapabilities, ProbeBackend, OpenTrainJob, HoldTrainJob, ReleaseTrainJob, StopTrainJob, WatchTrainJob } satisfies Record<keyof typeof VERSIONING_BEHAVIORS, unknown>;

for (const [type, fn] of Object.entries(workflows) as [keyof typeof VERSIONING_BEHAVIORS, (...args: never[]) => Promise<unknown>][])
  setWorkflowOptions(() => (workflowInfo().currentDeploymentVersion?.deploymentName ? { versioningBehavior: VERSIONING_BEHAVIORS[type] } : {}), fn);
