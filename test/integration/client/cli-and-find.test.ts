// The CLI commands that go through Temporal (start, check-runtime, probe, find), run as an operator
// runs them (a process, TEMPORAL_* in the environment), and the typed client's Find (docs/contract.md §7).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseGoDuration, toMillis } from '../../../src/model/duration.js';
import { DispatchKubeflowClient } from '../../../src/client/dispatch-client.js';
import { startWorkflowId } from '../../../src/contract/names.js';
import { trainJobName } from '../../../src/core/start/names.js';
import { startRequest } from '../../support/requests.js';
import { cliFolder, cliOnStack } from '../support/cli.js';
import { uniqueName } from '../support/kube.js';
import { dispatchSuite } from '../support/suite.js';

const suite = dispatchSuite('cli');
let configFile: string;
let dir: string;

beforeAll(() => ({ dir, configFile } = cliFolder(suite, 'dk-cli-')));

const cli = (...args: string[]) => cliOnStack(args);

describe('the dispatch-kubeflow CLI through Temporal', () => {
  it('start --wait prints the StartResult; find then answers Present with the same UID and the attempt token', async () => {
    const request = startRequest();
    const file = join(dir, `${request.job}.json`);
    writeFileSync(file, JSON.stringify(request));
    const started = await cli('start', '--config', configFile, '--request', file, '--wait', '--output', 'json');
    expect(started.code, started.stderr).toBe(0);
    const result = JSON.parse(started.stdout) as { ref: string; uid: string; name: string };
    expect(result.ref).toBe(`${suite.ns.name}/dj-${request.job.toLowerCase()}-s12`);

    const found = await cli('find', '--config', configFile, request.job, '12', '--output', 'json');
    expect(found.code, found.stderr).toBe(0);
    expect(JSON.parse(found.stdout)).toEqual({
      state: 'Present',
      ref: { namespace: suite.ns.name, name: result.name, uid: result.uid },
      attemptToken: expect.stringMatching(/^1-[0-9a-f]{12}$/),
    });
  });

  it('start of an invalid request exits 2 with the typed refusal, before any workflow starts', async () => {
    const file = join(dir, 'invalid.json');
    writeFileSync(file, JSON.stringify({ ...startRequest(), job: 'not-a-ulid' }));
    const refused = await cli('start', '--config', configFile, '--request', file, '--output', 'json');
    expect(refused.code).toBe(2);
    expect(JSON.parse(refused.stdout).error).toMatchObject({ type: 'ErrInvalid', reasons: ['job: not a valid JobID'] });
  });

  it('check-runtime answers the capabilities of a runtime, and refuses a broken one with exit 2', async () => {
    const torch = await cli('check-runtime', '--config', configFile, 'ClusterTrainingRuntime/dispatch-torch', '--output', 'json');
    expect(torch.code, torch.stderr).toBe(0);
    expect(JSON.parse(torch.stdout)).toEqual({ runtime: 'ClusterTrainingRuntime/dispatch-torch', procsPerNode: true });
    const missing = await cli('check-runtime', '--config', configFile, 'ClusterTrainingRuntime/no-such-runtime', '--output', 'json');
    expect(missing.code).toBe(2);
    expect(JSON.parse(missing.stdout).error).toMatchObject({ type: 'ErrUnsupported', reasons: ['runtime ClusterTrainingRuntime/no-such-runtime does not exist'] });
  });

  it('probe prints the three gates, all proven for the admin identity', async () => {
    const probed = await cli('probe', '--config', configFile, '--output', 'json');
    expect(probed.code, probed.stderr).toBe(0);
    expect(JSON.parse(probed.stdout)).toMatchObject({ reach: true, write: true, start: true, reasons: [] });
  });
});

describe('Find (docs/contract.md §7)', () => {
  const callMs = () => toMillis(parseGoDuration(suite.h.config.timeouts.call)!);

  it('answers Absent for a submission that was never started', async () => {
    expect(await suite.h.client.find(startRequest().job, 12, suite.h.kube, callMs())).toEqual({ state: 'Absent' });
  });

  it('answers InFlight while a Start of the submission runs (here: queued with no worker to take it)', async () => {
    const idle = new DispatchKubeflowClient(suite.h.env.client, { namespace: suite.ns.name, taskQueue: uniqueName('no-worker') });
    const request = startRequest();
    const handle = await idle.submit(request);
    try {
      await expect
        .poll(() => idle.find(request.job, request.submission, suite.h.kube, callMs()), { timeout: 15_000, interval: 250 })
        .toEqual({ state: 'InFlight', workflowId: handle.workflowId });
    } finally {
      await handle.terminate('test over');
    }
  });

  it('answers InFlight, by workflow id, for a Start begun by type name without search attributes (as the Go caller starts it), before any worker ran it', async () => {
    const here = new DispatchKubeflowClient(suite.h.env.client, { namespace: suite.ns.name });
    const request = startRequest();
    const workflowId = startWorkflowId(suite.ns.name, trainJobName(request.job, request.submission), request.attempt);
    // No worker polls this task queue: DispatchTrainJob, set in the workflow's first task, is never set.
    const handle = await suite.h.env.client.workflow.start('StartTrainJob', { taskQueue: uniqueName('no-worker'), workflowId, args: [request] });
    try {
      await expect
        .poll(() => here.find(request.job, request.submission, suite.h.kube, callMs()), { timeout: 15_000, interval: 250 })
        .toEqual({ state: 'InFlight', workflowId });
    } finally {
      await handle.terminate('test over');
    }
  });

  it('a Start of the same job and submission in another namespace is not this namespace\'s: Absent, not InFlight', async () => {
    const elsewhere = new DispatchKubeflowClient(suite.h.env.client, { namespace: uniqueName('other-ns'), taskQueue: uniqueName('no-worker') });
    const here = new DispatchKubeflowClient(suite.h.env.client, { namespace: suite.ns.name, taskQueue: uniqueName('no-worker') });
    const request = startRequest();
    const handle = await elsewhere.submit(request);
    try {
      // Visibility is eventually consistent: first see the other namespace's Start, then ask here.
      await expect
        .poll(() => elsewhere.find(request.job, request.submission, suite.h.kube, callMs()), { timeout: 15_000, interval: 250 })
        .toEqual({ state: 'InFlight', workflowId: handle.workflowId });
      expect(await here.find(request.job, request.submission, suite.h.kube, callMs())).toEqual({ state: 'Absent' });
    } finally {
      await handle.terminate('test over');
    }
  });
});
