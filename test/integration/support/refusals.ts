// A refusal as a caller receives it from the real Temporal server (docs/contract.md §6): the raw
// ApplicationFailure the workflow failed with (its type, non-retryable, details {reasons, step,
// ref?}, a message naming every reason), and the typed DispatchError a TypeScript client maps it
// to, which must say the same. Plus what a refusal before step 5 must leave: nothing.
import { randomUUID } from 'node:crypto';
import { ApplicationFailure, WorkflowFailedError } from '@temporalio/client';
import { expect } from 'vitest';
import type { KubeClients } from '../../../src/kube/clients.js';
import { Trainer } from '../../../src/model/constants.js';
import type { ErrorType } from '../../../src/model/errors.js';
import type { TrainJobRef } from '../../../src/model/operations.js';
import { fromFailure } from '../../../src/model/error-failures.js';
import type { KubeObject } from '../../../src/model/kube.js';
import type { DispatchHarness } from './dispatch.js';

export interface ExpectedRefusal {
  type: ErrorType;
  step: number;
  /** Every reason, in order. */
  reasons: string[];
  ref?: TrainJobRef;
}

/** The failure a workflow's result rejected with; fails the test when it resolved instead. */
export async function failureOf(result: Promise<unknown>): Promise<unknown> {
  try {
    const value = await result;
    throw new Error(`expected the workflow to fail; it returned ${JSON.stringify(value)}`);
  } catch (error) {
    return error;
  }
}

/**
 * Asserts that a workflow result (`handle.result()`, `client.workflow.execute(...)`) failed with
 * exactly this refusal, as the raw failure and as the typed error. Returns the failure.
 */
export async function expectRefusal(result: Promise<unknown>, expected: ExpectedRefusal): Promise<ApplicationFailure> {
  const error = await failureOf(result);
  expect(error).toBeInstanceOf(WorkflowFailedError);
  const failure = (error as WorkflowFailedError).cause;
  expect(failure).toBeInstanceOf(ApplicationFailure);
  const raw = failure as ApplicationFailure;
  const details = { reasons: expected.reasons, step: expected.step, ...(expected.ref ? { ref: expected.ref } : {}) };
  expect({ type: raw.type, nonRetryable: raw.nonRetryable, details: raw.details }).toEqual({
    type: expected.type,
    nonRetryable: true,
    details: [details],
  });
  for (const reason of expected.reasons) expect(raw.message).toContain(reason);

  const typed = fromFailure(error);
  expect({ type: typed?.type, step: typed?.step, reasons: typed?.reasons, ref: typed?.ref }).toEqual({
    type: expected.type,
    step: expected.step,
    reasons: expected.reasons,
    ref: expected.ref,
  });
  return raw;
}

/**
 * Starts StartTrainJob with a request as is, past the typed client's own validation, as a caller in
 * another language would; returns its result. The workflow id is unique unless given.
 */
export async function startRaw(h: DispatchHarness, request: unknown, workflowId?: string): Promise<unknown> {
  const handle = await h.env.client.workflow.start('StartTrainJob', {
    taskQueue: h.config.temporal.taskQueue,
    workflowId: workflowId ?? `start/${h.config.namespace}/raw-${randomUUID()}/a1`,
    args: [request],
  });
  return handle.result();
}

export interface TrainerObjectNames {
  trainjobs: string[];
  trainingruntimes: string[];
}

/** The names of every TrainJob and TrainingRuntime in a namespace, sorted. */
export async function trainerObjectNames(kube: KubeClients, namespace: string): Promise<TrainerObjectNames> {
  const names = async (plural: string) => {
    const list = (await kube.custom.listNamespacedCustomObject({ group: Trainer.group, version: Trainer.version, namespace, plural })) as {
      items: KubeObject[];
    };
    return list.items.map((o) => o.metadata?.name ?? '').sort();
  };
  return { trainjobs: await names(Trainer.trainJobPlural), trainingruntimes: await names(Trainer.trainingRuntimePlural) };
}

/**
 * Runs `refuse` and asserts the namespace holds the same TrainJobs and TrainingRuntimes after it as
 * before: a refusal at steps 1-4 happens before anything is created (docs/start.md, step 4).
 */
export async function expectNothingCreated(kube: KubeClients, namespace: string, refuse: () => Promise<unknown>): Promise<void> {
  const before = await trainerObjectNames(kube, namespace);
  await refuse();
  expect(await trainerObjectNames(kube, namespace)).toEqual(before);
}
