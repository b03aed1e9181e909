// /readyz and /livez over HTTP (observability/health-server.ts) from the worker's health source
// (worker/health.ts), with stand-ins for the two SDK objects it reads: the worker's status and the
// connection's GetSystemInfo. The real ones are tested in test/integration/worker/health.test.ts.
import type { NativeConnection, Worker } from '@temporalio/worker';
import { afterEach, describe, expect, it } from 'vitest';
import { serveHealth } from '../../../src/observability/health-server.js';
import type { ListeningServer } from '../../../src/observability/listen.js';
import { createHealthSource, type HealthSourceOptions } from '../../../src/worker/health.js';
import type { BackendGates } from '../../../src/model/results.js';

const PROVEN: BackendGates = { reach: true, write: true, start: true, reasons: [], checkedAt: '2026-12-02T12:00:00.000Z' };

type Status = ReturnType<Worker['getStatus']>;
const status = (runState: Status['runState'] = 'RUNNING'): Status => ({ runState, workflowPollerState: 'POLLING', activityPollerState: 'POLLING' }) as Status;

/** A connection whose GetSystemInfo does what `answer` does, counting the calls. */
function connection(answer: () => Promise<unknown>) {
  const calls = { count: 0 };
  const conn: HealthSourceOptions['connection'] = {
    withDeadline: (_deadline, fn) => fn(),
    workflowService: {
      getSystemInfo: () => {
        calls.count++;
        return answer();
      },
    } as unknown as NativeConnection['workflowService'],
  };
  return { conn, calls };
}

let server: ListeningServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function get(path: string, method = 'GET'): Promise<{ status: number; body: string }> {
  const response = await fetch(`${server!.url}${path}`, { method });
  return { status: response.status, body: await response.text() };
}

describe('the health server', () => {
  it('answers 200 and {ready:true} while the worker polls and Temporal answers, the backend reported beside it, and 503 naming the conditions not met', async () => {
    let gates: BackendGates | undefined = undefined;
    let runState: Status['runState'] = 'RUNNING';
    const { conn } = connection(() => Promise.resolve({}));
    server = await serveHealth('127.0.0.1:0', createHealthSource({ worker: { getStatus: () => status(runState) }, connection: conn, gates: { latestGates: () => gates } }));

    // Before the first preflight: the pod can work; the backend is unknown, and says so.
    const unknown = await get('/readyz');
    expect(unknown.status).toBe(200);
    expect(JSON.parse(unknown.body)).toEqual({
      ready: true,
      reasons: [],
      backend: { healthy: false, reasons: [expect.stringMatching(/^gates: unknown, the first preflight has not ended/)] },
    });

    gates = { ...PROVEN, reach: false, reasons: ['reach: connect ECONNREFUSED 127.0.0.1:6443'] };
    const outage = await get('/readyz');
    expect(outage.status).toBe(200);
    expect(JSON.parse(outage.body)).toEqual({
      ready: true,
      reasons: [],
      backend: { healthy: false, reasons: [`gates: reach not proven at ${PROVEN.checkedAt}`, 'gates: reach: connect ECONNREFUSED 127.0.0.1:6443'] },
    });

    gates = PROVEN;
    expect(await get('/readyz')).toEqual({ status: 200, body: '{"ready":true,"reasons":[],"backend":{"healthy":true,"reasons":[]}}\n' });
    expect(await get('/livez')).toEqual({ status: 200, body: '{"alive":true,"reasons":[]}\n' });
    expect((await get('/readyz', 'HEAD')).status).toBe(200);

    runState = 'DRAINING';
    const draining = await get('/readyz');
    expect(draining.status).toBe(503);
    expect(JSON.parse(draining.body)).toMatchObject({ ready: false, reasons: ['worker: the Temporal worker is DRAINING, not RUNNING'] });
    expect((await get('/livez')).status).toBe(200);

    runState = 'FAILED';
    expect((await get('/readyz')).status).toBe(503);
    expect(await get('/livez')).toEqual({ status: 503, body: '{"alive":false,"reasons":["worker: the Temporal worker FAILED"]}\n' });

    expect((await get('/metrics')).status).toBe(404);
    expect((await get('/readyz', 'POST')).status).toBe(405);
  });

  it('a Temporal that never answers makes /readyz answer 503 within the check timeout, not hang', async () => {
    const { conn } = connection(() => new Promise(() => undefined));
    server = await serveHealth(
      '127.0.0.1:0',
      createHealthSource({ worker: { getStatus: () => status() }, connection: conn, gates: { latestGates: () => PROVEN }, checkTimeoutMs: 200 }),
    );
    const answer = await get('/readyz');
    expect(answer.status).toBe(503);
    expect(JSON.parse(answer.body)).toEqual({
      ready: false,
      reasons: ["temporal: no answer over the worker's connection: no answer within 200 ms"],
      backend: { healthy: true, reasons: [] },
    });
  });

  it('checks Temporal at most once a second however many probes come, and again after', async () => {
    let now = 0;
    const { conn, calls } = connection(() => Promise.reject(new Error('14 UNAVAILABLE: connection refused')));
    const source = createHealthSource({ worker: { getStatus: () => status() }, connection: conn, gates: { latestGates: () => PROVEN }, now: () => now });
    const answers = await Promise.all([source.readiness(), source.readiness(), source.readiness()]);
    expect(calls.count).toBe(1);
    expect(answers.map((a) => a.reasons)).toEqual(Array(3).fill(["temporal: no answer over the worker's connection: 14 UNAVAILABLE: connection refused"]));
    now = 1_000;
    await source.readiness();
    expect(calls.count).toBe(2);
  });
});
