// The floor a Start is measured against: the same activity functions the workflow calls, in the
// same order, with the same pure core between them, called in one process with no Temporal. Each
// runs in a MockActivityEnvironment, which gives it the activity Context (cancellation signal,
// heartbeat) it reads, so the code measured is the product's own, unchanged.
import { MockActivityEnvironment } from '@temporalio/testing';
import { createActivities } from '../src/activities/index.js';
import { createKubeClients, loadKubeConfig } from '../src/kube/clients.js';
import { SettingsSource } from '../src/activities/settings-activities.js';
import { compareReadBack } from '../src/core/start/readback.js';
import { planStart } from '../src/core/start/plan.js';
import { validate } from '../src/core/start/validate.js';
import type { Config } from '../src/model/config.js';
import type { StartRequest } from '../src/model/request.js';

/** Steps 2 to 8 of a plain-mode Start without Temporal; resolves with the TrainJob's UID. */
export type DirectStart = (request: StartRequest) => Promise<string>;

/**
 * `callTimes`, when given, collects each call's time in ms by activity name (readRuntime, ...): the
 * direct path's split.
 */
export function directStarter(config: Config, kubeconfigPath: string, callTimes?: Map<string, number[]>): DirectStart {
  const acts = createActivities({
    kube: createKubeClients(loadKubeConfig(kubeconfigPath)),
    settings: new SettingsSource(config),
  });
  // Each call in its own MockActivityEnvironment, timed under its activity's name.
  const run = <A extends unknown[], R>(name: string, fn: (...args: A) => Promise<R>, ...args: A): Promise<R> => {
    const t0 = performance.now();
    return new MockActivityEnvironment()
      .run<A, R, typeof fn>(fn, ...args)
      .finally(() => callTimes?.set(name, [...(callTimes.get(name) ?? []), performance.now() - t0]));
  };
  const { namespace } = config;
  return async (request) => {
    const valid = validate(request);
    const runtime = await run('readRuntime', acts.readRuntime, { namespace, runtime: valid.runtime });
    const { runtimeCopy, trainJob } = planStart(valid, runtime, config);
    const name = trainJob.metadata.name!;
    const copy = await run('createRuntimeCopy', acts.createRuntimeCopy, { copy: runtimeCopy });
    const job = await run('createTrainJob', acts.createTrainJob, { trainJob, copy });
    await run('setOwner', acts.setOwner, { namespace, copy, trainJob: { name, uid: job.uid } });
    const read = await run('readBack', acts.readBack, { namespace, name });
    const differences = compareReadBack(trainJob, read, config.mode);
    if (differences.length > 0)
      throw new Error(`direct Start ${namespace}/${name}: read-back differs: ${differences.join('; ')}`);
    return job.uid;
  };
}
