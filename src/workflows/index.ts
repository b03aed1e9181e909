// The workflow types a caller starts by name (docs/contract.md §1).
export { StartTrainJob } from './start-trainjob.js';
export { TrainJobCapabilities } from './capabilities.js';
export { ProbeBackend } from './probe-backend.js';
export { progressQuery } from './progress.js';
export { OpenTrainJob, HoldTrainJob, ReleaseTrainJob } from './lifecycle.js';
export { StopTrainJob } from './stop-trainjob.js';
export { WatchTrainJob } from './watch-trainjob.js';
