// The workflow types a caller starts by name (docs/contract.md §1): Temporal registers each export
// under its own name, so each is named as src/contract/names.ts names its type; the check in
// registered.ts fails to compile when one is missing or misnamed. Each declares how it moves between
// builds (versioning-behaviors.ts).
import './versioning-behaviors.js';

export { StartTrainJob } from './start-trainjob.js';
export { TrainJobCapabilities } from './capabilities.js';
export { ProbeBackend } from './probe-backend.js';
export { progressQuery } from './progress.js';
export { OpenTrainJob, HoldTrainJob, ReleaseTrainJob } from './open-hold-release.js';
export { StopTrainJob } from './stop-trainjob.js';
export { WatchTrainJob } from './watch-trainjob.js';
