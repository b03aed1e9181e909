// A client we did not write (docs/contract.md §1): the `temporal` CLI starts each workflow type by name with
// plain JSON, reads the result, and sees a refusal's type and reasons in the failure it prints.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { Trainer } from '../../../src/model/constants.js';
import { BackendGatesSchema, CapabilitiesSchema, StartResultSchema } from '../../../src/model/results.js';
import { stackInfo } from '../support/context.js';
import { dispatchSuite } from '../support/suite.js';

const suite = dispatchSuite('cli');

interface CliRun {
  code: number;
  /** stdout parsed as JSON (`-o json`). */
  output: Record<string, unknown>;
  stderr: string;
}

/** Runs `temporal <args> -o json` against the run's Temporal server, ignoring any local profile. */
async function temporal(...args: string[]): Promise<CliRun> {
  const { cli, address, namespace } = stackInfo().temporal;
  const argv = [...args, '-o', 'json', '--address', address, '--namespace', namespace, '--disable-config-file', '--disable-config-env', '--color', 'never'];
  const finished = await promisify(execFile)(cli, argv).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
  return { code: finished.code, output: JSON.parse(finished.stdout) as Record<string, unknown>, stderr: finished.stderr };
}

/** docs/contract.md §2's example, byte for byte but for the runtime it names, which this cluster has as dispatch-torch. */
const contractExample = () =>
  readFileSync(new URL('../../fixtures/requests/contract-example.json', import.meta.url), 'utf8').replace(
    '"name": "torch-distributed"',
    '"name": "dispatch-torch"',
  );

/**
 * The CLI's JSON shorthand re-renders a payload through Go types and prints an empty array as null;
 * with this flag it prints the payload itself, which payloadOf decodes as a Go client would.
 */
const RAW = '--no-json-shorthand-payloads';

/** The result payload of a raw run: its encoding must be plain JSON (docs/contract.md §1); its data, parsed. */
function payloadOf(run: CliRun): unknown {
  const { metadata, data } = run.output.result as { metadata: { encoding: string }; data: string };
  expect(Buffer.from(metadata.encoding, 'base64').toString()).toBe('json/plain');
  return JSON.parse(Buffer.from(data, 'base64').toString('utf8'));
}

const failureOf = (run: CliRun) =>
  (run.output.closeEvent as { workflowExecutionFailedEventAttributes: { failure: { message: string; applicationFailureInfo: unknown } } })
    .workflowExecutionFailedEventAttributes.failure;

describe('the temporal CLI as a caller (docs/contract.md §1)', () => {
  it("starts StartTrainJob by type name with docs/contract.md §2's JSON, and reads the StartResult", async () => {
    const name = 'dj-01jd0q3j0y6q7j7z4w2x5v8k9m-s12';
    const workflowId = `start/${suite.ns.name}/${name}/a1`;
    const taskQueue = suite.h.config.temporal.taskQueue;

    const started = await temporal('workflow', 'start', '--type', 'StartTrainJob', '--task-queue', taskQueue, '--workflow-id', workflowId, '--input', contractExample());
    expect(started).toMatchObject({ code: 0, output: { workflowId, type: 'StartTrainJob', taskQueue } });

    const finished = await temporal('workflow', 'result', '--workflow-id', workflowId, RAW);
    expect(finished.output.status).toBe('COMPLETED');
    const result = StartResultSchema.parse(payloadOf(finished));
    expect(result).toMatchObject({ ref: `${suite.ns.name}/${name}`, namespace: suite.ns.name, name, runtimeCopy: name, mode: 'plain' });

    const trainJob = (await suite.h.kube.custom.getNamespacedCustomObject({
      group: Trainer.group,
      version: Trainer.version,
      namespace: suite.ns.name,
      plural: Trainer.trainJobPlural,
      name,
    })) as { metadata: { uid: string }; spec: { trainer: { numProcPerNode?: number } } };
    expect(trainJob.metadata.uid).toBe(result.uid);
    expect(trainJob.spec.trainer.numProcPerNode).toBe(8);
  });

  it('sees a refusal as an ApplicationFailure of type ErrInvalid, with every reason and the step in its details', async () => {
    const request = JSON.parse(contractExample()) as Record<string, unknown>;
    const input = JSON.stringify({ ...request, job: 'not-a-ulid', attempt: -1 });
    const run = await temporal(
      'workflow',
      'execute',
      '--type',
      'StartTrainJob',
      '--task-queue',
      suite.h.config.temporal.taskQueue,
      '--workflow-id',
      `start/${suite.ns.name}/not-a-ulid/a-1`,
      '--input',
      input,
    );
    expect(run.code).not.toBe(0);
    expect(run.output.status).toBe('FAILED');
    const failure = failureOf(run);
    expect(failure.applicationFailureInfo).toEqual({
      type: 'ErrInvalid',
      nonRetryable: true,
      details: [{ reasons: ['job: not a valid JobID', 'attempt: negative attempt'], step: 4 }],
    });
    expect(failure.message).toBe('invalid start request: job: not a valid JobID; attempt: negative attempt');
  });

  it('calls TrainJobCapabilities and ProbeBackend by type name too, and their payloads are plain JSON', async () => {
    const taskQueue = suite.h.config.temporal.taskQueue;
    const spec = { extensions: { 'kubeflow/RuntimeRef': { kind: 'ClusterTrainingRuntime', name: 'dispatch-torch' } } };
    const execute = (type: string, workflowId: string, ...input: string[]) =>
      temporal('workflow', 'execute', '--type', type, '--task-queue', taskQueue, '--workflow-id', workflowId, ...input, RAW);

    const capabilities = await execute('TrainJobCapabilities', `capabilities/${suite.ns.name}/cli`, '--input', JSON.stringify({ spec }));
    expect(CapabilitiesSchema.parse(payloadOf(capabilities))).toEqual({ runtime: 'ClusterTrainingRuntime/dispatch-torch', procsPerNode: true });

    const probe = await execute('ProbeBackend', `probe/${suite.ns.name}/cli`);
    expect(BackendGatesSchema.parse(payloadOf(probe))).toMatchObject({ reach: true, write: true, start: true, reasons: [] });
  });
});
