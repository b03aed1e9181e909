// Each workflow type declares its versioning behavior (contract/versioning.ts) where Temporal reads
// it: on the workflow function, before the worker registers it. Imported by index.ts for this effect.
import { setWorkflowOptions } from '@temporalio/workflow';
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
  setWorkflowOptions({ versioningBehavior: VERSIONING_BEHAVIORS[type] }, fn);
