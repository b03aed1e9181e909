// Build N+1 of the rollout test (rollout.test.ts): today's workflows with a change that has no
// patch. Start and Open begin with a 1 ms timer, so a history of build N's Start or Open replayed
// on this code is nondeterministic: only pinning keeps build N's runs off this build.
import { setWorkflowOptions, sleep } from '@temporalio/workflow';
import { VERSIONING_BEHAVIORS } from '../../../src/contract/versioning.js';
import { OpenTrainJob as openOfBuildN } from '../../../src/workflows/open-hold-release.js';
import { StartTrainJob as startOfBuildN } from '../../../src/workflows/start-trainjob.js';

export * from '../../../src/workflows/index.js';

export async function StartTrainJob(request: unknown): ReturnType<typeof startOfBuildN> {
  await sleep(1);
  return startOfBuildN(request);
}

export async function OpenTrainJob(input: unknown): ReturnType<typeof openOfBuildN> {
  await sleep(1);
  return openOfBuildN(input);
}

setWorkflowOptions({ versioningBehavior: VERSIONING_BEHAVIORS.StartTrainJob }, StartTrainJob);
setWorkflowOptions({ versioningBehavior: VERSIONING_BEHAVIORS.OpenTrainJob }, OpenTrainJob);
