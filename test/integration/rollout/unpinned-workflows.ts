// The rollout test's control (rollout.test.ts): today's workflows with Start and Open upgrading at
// their next task instead of pinned, as a build that got its versioning behaviors wrong would.
import { setWorkflowOptions } from '@temporalio/workflow';
import { OpenTrainJob, StartTrainJob } from '../../../src/workflows/index.js';

export * from '../../../src/workflows/index.js';

setWorkflowOptions({ versioningBehavior: 'AUTO_UPGRADE' }, StartTrainJob);
setWorkflowOptions({ versioningBehavior: 'AUTO_UPGRADE' }, OpenTrainJob);
