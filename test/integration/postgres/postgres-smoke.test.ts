// Temporal on PostgreSQL, for real (docs/deploy.md): Debian's PostgreSQL, the schemas set up by
// deploy/temporal/setup-schema.sh with Temporal's SQL tool, temporal-server 1.29.1 (built from the
// Go module proxy) on deploy/temporal/config/, the namespace and search attributes registered by
// deploy/temporal/setup-namespace.sh: exactly what docker-compose.yml runs. On it, with the run's
// real cluster: Start, Open, Hold, Release, Watch and Stop in plain and Kueue mode, what they
// stored read back from PostgreSQL itself, and replay of the committed histories and of this run's
// own, fetched from the PostgreSQL-backed server. The run's Temporal server is used when it is this
// one (`npm run test:postgres`); otherwise the file starts its own.
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  postgresTemporalBinaries,
  psql,
  startPostgresTemporal,
  type PostgresInfo,
} from '../../../dev/harness/postgres.js';
import { SearchAttributes } from '../../../src/contract/names.js';
import { metricsSinks } from '../../../src/observability/interceptors.js';
import { createDispatchMetrics } from '../../../src/observability/metrics.js';
import { WorkflowTypes } from '../../../src/contract/names.js';
import { startRequest } from '../../support/requests.js';
import { historiesOf, TODAY } from '../../unit/replay/builds.js';
import { stackInfo } from '../support/context.js';
import { startDispatch, workflowBundle, type DispatchHarness } from '../support/dispatch.js';
import { freshKueueNamespace, freshNamespace, type TestNamespace } from '../support/kube.js';
import { REAL_KUEUE_CONFIG } from '../support/operations.js';
import { temporalEnv } from '../support/temporal.js';
import { runtimeFixtures, type RuntimeFixtures, type RuntimeRef } from '../support/runtimes.js';
import { refOf, runFor } from '../operations/support.js';

let address: string;
let pg: PostgresInfo;
let stopOwn: (() => Promise<void>) | undefined;

beforeAll(async () => {
  const stack = stackInfo();
  if (stack.temporal.postgres) {
    address = stack.temporal.address;
    pg = stack.temporal.postgres;
    return;
  }
  const own = await startPostgresTemporal({
    binaries: await postgresTemporalBinaries(stack.temporal.cli),
    dataDir: mkdtempSync(join(tmpdir(), `dispatch-kubeflow-${process.pid}-postgres-`)),
    logDir: stack.logDir,
    lifeline: process.pid,
  });
  address = own.address;
  pg = own.postgres.info;
  stopOwn = own.stop;
  console.log(`[postgres] Temporal on PostgreSQL at ${address}, logs ${stack.logDir}`);
}, 600_000);
afterAll(async () => {
  await stopOwn?.();
});

it('the schemas are at the newest version of the release the server runs (update-schema applied them all)', async () => {
  // Which PostgreSQL ran, for the record: docker-compose.yml pins the one last seen here.
  console.log(`[postgres] ${await psql(pg, 'temporal', 'SELECT version()')}`);
  const { schemaDir } = await postgresTemporalBinaries(stackInfo().temporal.cli);
  const newest = (store: string) =>
    readdirSync(join(schemaDir, 'postgresql/v12', store, 'versioned'))
      .map((v) => v.replace(/^v/, ''))
      .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }))
      .at(-1);
  expect(newest('temporal')).toBe('1.18'); // temporal-server 1.29.1's
  for (const [store, database] of [
    ['temporal', 'temporal'],
    ['visibility', 'temporal_visibility'],
  ] as const)
    expect(await psql(pg, database, 'SELECT curr_version FROM schema_version'), database).toBe(newest(store));
});

/** A worker in its own namespace on the PostgreSQL-backed server, and the task queues used. */
interface Mode {
  ns: TestNamespace;
  h: DispatchHarness;
  runtimes: RuntimeFixtures;
  slow: RuntimeRef;
}
const taskQueues: string[] = [];

function mode(prefix: string, kueue: boolean): Mode {
  const m = {} as Mode;
  beforeAll(async () => {
    m.ns = kueue ? await freshKueueNamespace(prefix) : await freshNamespace(prefix);
    m.h = await startDispatch({
      namespace: m.ns.name,
      temporalAddress: address,
      config: kueue ? REAL_KUEUE_CONFIG : {},
    });
    taskQueues.push(m.h.config.temporal.taskQueue);
    m.runtimes = runtimeFixtures(m.h.kube);
    m.slow = await m.runtimes.namespaced(m.ns.name, 'slow', runFor('4s'));
  });
  afterAll(async () => {
    await m.h?.close();
    await m.runtimes?.dispose();
    await m.ns?.dispose();
  });
  return m;
}

const started = async (m: Mode) => {
  const request = startRequest({ runtime: m.slow });
  return { request, ref: refOf(await m.h.client.startTrainJob(request)) };
};

/** What PostgreSQL holds of a workflow: its row in `temporal` and its visibility row's search attributes. */
async function stored(workflowId: string): Promise<{ executions: number; searchAttributes: string }> {
  const id = workflowId.replaceAll("'", "''");
  const executions = Number(
    await psql(pg, 'temporal', `SELECT count(*) FROM executions WHERE workflow_id = '${id}'`),
  );
  const searchAttributes = await psql(
    pg,
    'temporal_visibility',
    `SELECT search_attributes FROM executions_visibility WHERE workflow_id = '${id}'`,
  );
  return { executions, searchAttributes };
}

/** Start, then Hold before Open (Held), Open (still Held), Release, Watch to the end; a second Start stopped. */
async function lifecycle(m: Mode, released: string[]): Promise<void> {
  const { request, ref } = await started(m);
  // SQL visibility is written after the workflow closes: find may still see the Start in flight.
  let found = await m.h.client.find(request.job, request.submission, m.h.kube, 5_000);
  for (let tries = 0; found.state === 'InFlight' && tries < 50; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    found = await m.h.client.find(request.job, request.submission, m.h.kube, 5_000);
  }
  expect(found).toMatchObject({
    state: 'Present',
    ref,
  });

  // Stored in PostgreSQL: the Start's execution, its search attributes in SQL visibility, and a
  // visibility query on them answers it.
  // Visibility is written after the workflow task, so a query right after the Start may not see it yet.
  const query = `${SearchAttributes.jobId} = '${request.job}'`;
  let [start] = await listWorkflows(m, query);
  for (let tries = 0; !start && tries < 50; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    [start] = await listWorkflows(m, query);
  }
  expect(start?.type).toBe(WorkflowTypes.start);
  const row = await stored(start!.workflowId);
  expect(row.executions).toBe(1);
  expect(row.searchAttributes).toContain(request.job);

  expect(await m.h.client.hold(ref)).toMatchObject({ ref, phase: 'Held', held: true });
  expect(await m.h.client.open(ref)).toMatchObject({ ref, phase: 'Held', held: true });
  const resumed = await m.h.client.release(ref);
  expect(resumed).toMatchObject({ ref, held: false });
  expect(released).toContain(resumed.phase);
  expect(await m.h.client.watch(ref)).toMatchObject({ ref, phase: 'Succeeded' });

  const other = await started(m);
  expect(await m.h.client.open(other.ref)).toMatchObject({ ref: other.ref });
  expect(await m.h.client.stop(other.ref)).toMatchObject({ ref: other.ref, phase: 'Absent' });
  expect(await m.h.client.watch(other.ref)).toMatchObject({ ref: other.ref, phase: 'Absent' });
}

async function listWorkflows(m: Mode, query: string) {
  const found = [];
  for await (const execution of m.h.env.client.workflow.list({ query })) found.push(execution);
  return found;
}

describe('Temporal on PostgreSQL: plain mode', () => {
  const m = mode('pg-plain', false);
  it('Start (found, stored in PostgreSQL), Hold, Open, Release, Watch: Succeeded; Stop: Absent', async () => {
    await lifecycle(m, ['Running', 'Succeeded']);
  });
});

describe('Temporal on PostgreSQL: Kueue mode', () => {
  const m = mode('pg-kueue', true);
  it('Start (found, stored in PostgreSQL), Hold, Open, Release, Watch: Succeeded on the real Kueue; Stop: Absent', async () => {
    await lifecycle(m, ['Gated', 'Queued', 'Running', 'Succeeded']);
  });
});

describe('replay', () => {
  it('the committed histories and every workflow this file ran on PostgreSQL replay against src/workflows', async () => {
    expect(taskQueues).toHaveLength(2);
    const env = await temporalEnv(address);
    try {
      const fetched: { workflowId: string; type: string; history: temporal.api.history.v1.IHistory }[] = [];
      for (const queue of taskQueues) {
        for await (const execution of env.client.workflow.list({ query: `TaskQueue = '${queue}'` })) {
          const history = await env.client.workflow
            .getHandle(execution.workflowId, execution.runId)
            .fetchHistory();
          fetched.push({
            workflowId: `${execution.type} ${execution.workflowId}`,
            type: execution.type,
            history,
          });
        }
      }
      // Both modes ran every operation: Start, Open, Hold, Release, Stop and Watch.
      const types = new Set(fetched.map((f) => f.type));
      for (const type of [
        WorkflowTypes.start,
        WorkflowTypes.open,
        WorkflowTypes.hold,
        WorkflowTypes.release,
        WorkflowTypes.stop,
        WorkflowTypes.watch,
      ])
        expect(types, type).toContain(type);
      // The histories today's code replays (test/histories/builds.json); old branches of retired patches replay against their build.
      const committed = historiesOf(TODAY).map(({ name, history }) => ({ workflowId: name, history }));
      const failures: string[] = [];
      let replayed = 0;
      for await (const result of Worker.runReplayHistories(
        // The worker's bundle, with its interceptors and so the sinks they name (never called in replay).
        {
          workflowBundle: await workflowBundle(),
          replayName: 'postgres',
          sinks: metricsSinks(createDispatchMetrics()),
        },
        [...committed, ...fetched.map(({ workflowId, history }) => ({ workflowId, history }))],
      )) {
        replayed++;
        if (result.error)
          failures.push(`${result.workflowId}: ${result.error.name}: ${result.error.message}`);
      }
      expect(failures).toEqual([]);
      expect(replayed).toBe(committed.length + fetched.length);
      console.log(
        `[postgres] replayed ${committed.length} committed histories and ${fetched.length} fetched from PostgreSQL`,
      );
    } finally {
      await env.teardown();
    }
  }, 300_000);
});
