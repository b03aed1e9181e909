// The compensation's stop against a scripted fake API (docs/contract.md §7): it reads the TrainJob,
// decides, and deletes with the UID and resourceVersion it read as preconditions, so an Open that
// lands between the read and the delete makes the delete fail (409): the stop reads again and
// leaves the TrainJob the caller has just opened.
import { ApiException } from '@kubernetes/client-node';
import { MockActivityEnvironment } from '@temporalio/testing';
import { describe, expect, it } from 'vitest';
import { createActivities } from '../../../src/activities/index.js';
import type { KubeClients } from '../../../src/kube/clients.js';
import type { UndoStartInput } from '../../../src/activities/undo-start-activities.js';
import { renderStart } from '../../../src/core/start/render.js';
import type { KubeObject, TrainJob } from '../../../src/model/kube.js';
import { OperationAnnotations, OperationAnnotationValues } from '../../../src/model/constants.js';
import { config, exampleRequest, loadInputRuntime, validOf } from '../../golden/cases.js';

const CONFLICT = new ApiException(409, 'Conflict', { reason: 'Conflict', message: 'Precondition failed: ResourceVersion in precondition: 1, ResourceVersion in object meta: 2' }, {});

/** A fake API answering gets and deletes from scripts, in order; records every call with its preconditions. */
function scripted(gets: (KubeObject | Error)[], deletes: (object | Error)[]) {
  const calls: string[] = [];
  const next = <T>(script: (T | Error)[], what: string) => {
    calls.push(what);
    const answer = script.shift();
    if (answer === undefined) throw new Error(`unscripted ${what}`);
    return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
  };
  const custom = {
    getNamespacedCustomObject: (p: { plural: string }) => next(gets, `get ${p.plural}`),
    deleteNamespacedCustomObject: (p: { plural: string; body: { preconditions: object } }) => next(deletes, `delete ${p.plural} ${JSON.stringify(p.body.preconditions)}`),
  };
  const kube = { custom, server: 'fake' } as unknown as KubeClients;
  const activities = createActivities({ kube, settings: { config: config(), latestGates: () => undefined }, requestTimeoutMs: 1000 });
  return { activities, calls };
}

const { trainJob } = renderStart(validOf(exampleRequest({ kind: 'ClusterTrainingRuntime', name: 'dispatch-kind' })), loadInputRuntime('dispatch-kind'), config());
const NAME = trainJob.metadata.name!;
const NAMESPACE = trainJob.metadata.namespace!;
const REF = { namespace: NAMESPACE, name: NAME, uid: 'job-uid' };

/** The TrainJob as the server holds it at this resourceVersion, opened by the caller or not. */
const onServer = (resourceVersion: string, opened: boolean): TrainJob => {
  const read = structuredClone(trainJob);
  read.metadata = { ...read.metadata, uid: 'job-uid', resourceVersion };
  if (opened) {
    read.metadata.annotations = { ...read.metadata.annotations, [OperationAnnotations.opened]: OperationAnnotationValues.opened };
    read.spec.suspend = false;
  }
  return read;
};

/** The stop of a failure at step 8: the TrainJob's UID known, the copy owned (step 7 succeeded). */
const STOP: UndoStartInput = {
  namespace: NAMESPACE,
  name: NAME,
  token: 'token',
  trainJobUid: 'job-uid',
  ref: REF,
  ownerSet: true,
  step: 8,
  trainJob,
  mode: 'plain',
  kueue: config().kueue,
};

describe('stopTrainJob: read, decide, delete with preconditions', () => {
  it('deletes the TrainJob with the UID and resourceVersion it read', async () => {
    const { activities, calls } = scripted([onServer('1', false)], [{}]);
    expect(await new MockActivityEnvironment().run(activities.stopTrainJob, STOP)).toEqual({ deleted: [`TrainJob ${NAMESPACE}/${NAME}`] });
    expect(calls).toEqual(['get trainjobs', 'delete trainjobs {"uid":"job-uid","resourceVersion":"1"}']);
  });

  it('an Open racing the delete makes it fail (409): the stop reads again, and leaves the TrainJob now opened, saying why', async () => {
    const { activities, calls } = scripted([onServer('1', false), onServer('2', true)], [CONFLICT]);
    expect(await new MockActivityEnvironment().run(activities.stopTrainJob, STOP)).toEqual({
      deleted: [],
      left: [{ ref: REF, reason: `TrainJob ${NAMESPACE}/${NAME} was left as it is: the caller has opened it` }],
    });
    expect(calls).toEqual(['get trainjobs', 'delete trainjobs {"uid":"job-uid","resourceVersion":"1"}', 'get trainjobs']);
  });
});
