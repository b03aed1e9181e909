// The bad-input fuzz through the real servers: generated StartRequests (fuzz.ts) sent as they are,
// past the typed client's own checks, to StartTrainJob on a worker process. Every Start must end,
// within a bound, in a result or a typed failure naming its reasons; a watch on the namespace sees
// every TrainJob and runtime copy ever created, and none may belong to a request refused before
// step 5; the leak audit then finds exactly the TrainJobs and copies of the Starts that succeeded.
import fc from 'fast-check';
import { Watch } from '@kubernetes/client-node';
import { WorkflowFailedError } from '@temporalio/client';
import { expect } from 'vitest';
import { randomJobId } from '../../../src/client/job-id.js';
import { trainJobName } from '../../../src/core/start/names.js';
import { Trainer } from '../../../src/model/constants.js';
import { JOB_ID_PATTERN } from '../../../src/model/request.js';
import { DispatchError, ERROR_TYPES } from '../../../src/model/errors.js';
import { fromFailure } from '../../../src/model/error-failures.js';
import type { KubeObject } from '../../../src/model/kube.js';
import type { StartResult } from '../../../src/model/results.js';
import { kubeConfig } from '../../integration/support/kube.js';
import { anyRequestArb, type Json } from './fuzz.js';
import type { Lab } from './lab.js';

export interface FuzzFigures {
  cases: number;
  seed: number;
  concurrency: number;
  elapsedMs: number;
  startsPerSecond: number;
  slowestMs: number;
  outcomes: Record<string, number>;
  /** Objects created (seen by the watch), and how many of them belong to a request refused before step 5 (0). */
  objectsCreated: number;
  createdForEarlyRefusals: number;
  /** Up to ten failures after step 4 (the API server had the last word), with their first reason. */
  lateFailures: string[];
}

/** Every TrainJob and TrainingRuntime created in a namespace while it runs: "<plural>/<name>". */
async function watchCreations(namespace: string): Promise<{ created: Set<string>; stop(): void }> {
  const created = new Set<string>();
  const watch = new Watch(kubeConfig());
  const controllers = await Promise.all(
    [Trainer.trainJobPlural, Trainer.trainingRuntimePlural].map((plural) =>
      watch.watch(
        `/apis/${Trainer.group}/${Trainer.version}/namespaces/${namespace}/${plural}`,
        {},
        (phase: string, object: KubeObject) => {
          if (phase === 'ADDED') created.add(`${plural}/${object.metadata?.name ?? ''}`);
        },
        () => undefined,
      ),
    ),
  );
  return { created, stop: () => controllers.forEach((c) => c.abort()) };
}

/**
 * fast-check leans towards small values, so many samples would share the JobID 000…0 and collide on
 * one TrainJob name; a valid JobID is replaced by a fresh one, so that each case is its own job.
 */
function ownJob(request: Json): Json {
  if (
    request &&
    typeof request === 'object' &&
    !Array.isArray(request) &&
    typeof request.job === 'string' &&
    JOB_ID_PATTERN.test(request.job)
  ) {
    return { ...request, job: randomJobId() };
  }
  return request;
}

type CaseOutcome =
  { ok: true; result: StartResult; ms: number } | { ok: false; error: DispatchError; ms: number };

export async function fuzzStarts(
  lab: Lab,
  options: { cases: number; concurrency: number; seed?: number; boundMs?: number },
): Promise<FuzzFigures> {
  const seed = options.seed ?? Date.now() % 2 ** 31;
  const inputs = fc.sample(anyRequestArb, { numRuns: options.cases, seed }).map(ownJob);
  const config = lab.config({ timeouts: { call: '10s', workload: '5s' } });
  const worker = await lab.worker(config, `fuzz-${seed}`);
  const boundMs = options.boundMs ?? 120_000;
  const outcomes: CaseOutcome[] = new Array(inputs.length);
  const creations = await watchCreations(lab.ns.name);
  let next = 0;
  const t0 = Date.now();

  const runOne = async (index: number): Promise<void> => {
    const started = Date.now();
    const handle = await lab.env.client.workflow.start('StartTrainJob', {
      taskQueue: config.temporal.taskQueue,
      workflowId: `fuzz/${lab.ns.name}/${seed}/${index}`,
      args: [inputs[index]],
    });
    let timer: NodeJS.Timeout | undefined;
    const hung = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new Error(
              `case ${index} did not end within ${boundMs} ms: ${JSON.stringify(inputs[index]).slice(0, 500)}`,
            ),
          ),
        boundMs,
      );
    });
    try {
      const result = (await Promise.race([handle.result(), hung])) as StartResult;
      outcomes[index] = { ok: true, result, ms: Date.now() - started };
    } catch (error) {
      if (!(error instanceof WorkflowFailedError)) throw error;
      const typed = fromFailure(error);
      if (!typed)
        throw new Error(
          `case ${index} failed untyped: ${String(error.cause)}; input ${JSON.stringify(inputs[index]).slice(0, 500)}`,
          { cause: error },
        );
      outcomes[index] = { ok: false, error: typed, ms: Date.now() - started };
    } finally {
      clearTimeout(timer);
    }
  };
  await Promise.all(
    Array.from({ length: options.concurrency }, async () => {
      while (next < inputs.length) await runOne(next++);
    }),
  );
  const elapsedMs = Date.now() - t0;
  // Watch events trail the writes a little.
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  creations.stop();
  await worker.stop();

  const counts: Record<string, number> = {};
  const earlyRefused = new Set<string>();
  const lateFailures: string[] = [];
  for (const [index, outcome] of outcomes.entries()) {
    const key = outcome.ok ? 'started' : `${outcome.error.type} step ${outcome.error.step}`;
    counts[key] = (counts[key] ?? 0) + 1;
    if (outcome.ok) {
      lab.ledger.expectStarted(outcome.result.name);
      continue;
    }
    const { type, step, reasons } = outcome.error;
    const what = `case ${index}: ${type} at step ${step}: ${JSON.stringify(inputs[index]).slice(0, 300)}`;
    expect(ERROR_TYPES, what).toContain(type);
    expect(reasons.length, what).toBeGreaterThan(0);
    for (const reason of reasons) expect(reason.trim(), what).not.toBe('');
    if (step >= 5 && lateFailures.length < 10)
      lateFailures.push(`${type} at step ${step}: ${reasons[0]!.slice(0, 300)}`);
    // A request refused before step 5 that still has a name (valid job and submission) must have created nothing of it.
    const input = inputs[index] as { job?: unknown; submission?: unknown } | null;
    if (
      step < 5 &&
      typeof input?.job === 'string' &&
      JOB_ID_PATTERN.test(input.job) &&
      Number.isInteger(input.submission)
    ) {
      earlyRefused.add(trainJobName(input.job, input.submission as number));
    }
  }
  const createdForEarlyRefusals = [...creations.created].filter((key) =>
    earlyRefused.has(key.slice(key.indexOf('/') + 1)),
  );
  expect(createdForEarlyRefusals, 'objects created for requests refused before step 5').toEqual([]);
  return {
    cases: inputs.length,
    seed,
    concurrency: options.concurrency,
    elapsedMs,
    startsPerSecond: Math.round((inputs.length / elapsedMs) * 10_000) / 10,
    slowestMs: Math.max(...outcomes.map((o) => o.ms)),
    outcomes: counts,
    objectsCreated: creations.created.size,
    createdForEarlyRefusals: createdForEarlyRefusals.length,
    lateFailures,
  };
}
