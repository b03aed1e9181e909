// A deliberately broken StartTrainJob for the replay test: the same start as the real one
// (prepareStart, progress, the folds' marker at step 2), then the runtime copy is created before
// the runtime is read, with no patch. Replaying a recorded Start against it must fail with a DeterminismViolationError:
// this is what the corpus replay exists to catch before a worker runs such a change.
import { trainJobName } from '../../../src/core/start/names.js';
import { runtimeKey } from '../../../src/core/objects/runtime-name.js';
import type { TrainerRuntime } from '../../../src/model/kube.js';
import { activitiesFor, prepareStart } from '../../../src/workflows/activity-proxies.js';
import { foldingCalls } from '../../../src/workflows/folded-steps.js';
import { ProgressReporter } from '../../../src/workflows/progress.js';

export async function StartTrainJob(request: unknown): Promise<void> {
  const progress = new ProgressReporter('StartTrainJob');
  const { settings, valid } = await prepareStart(request);
  const { config } = settings;
  const { job, submission, attempt } = valid.request;
  progress.identify(job, config.namespace, trainJobName(job, submission));
  progress.enter(1, `backend gates (attempt ${attempt})`);
  progress.enter(2, `runtime ${runtimeKey(valid.runtime)}`);
  const acts = activitiesFor(config, progress.taskEnd);
  foldingCalls();
  // The real workflow reads the runtime here (step 2) and creates the copy from it (step 5), in one fold.
  await acts.createRuntimeCopy({ copy: {} as TrainerRuntime });
  await acts.readRuntime({ namespace: config.namespace, runtime: valid.runtime });
}
