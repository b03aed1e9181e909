// A worker's memory of the failed node containers on the worker clusters
// (src/worker/exit-code-memory.ts): per (cluster, job id, submission) the first failure heard, by
// the Outcome's rule, whatever order the pods' versions come in; entries go keepMs after they were
// first remembered, and the oldest go first past maxEntries.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { firstFailure, nodeFailuresOf, type JobKey } from '../../../src/core/operations/node-failures.js';
import { exitCodeOf } from '../../../src/core/operations/watch-outcome.js';
import { Labels } from '../../../src/model/constants.js';
import type { Pod } from '../../../src/model/kube.js';
import { ExitCodeMemory } from '../../../src/worker/exit-code-memory.js';
import { JOB_ID, pod, T0, T1, trainJob } from '../core/operation-fixtures.js';
import { arbPod } from '../core/pod-arbitraries.js';

const JOB: JobKey = { jobId: JOB_ID, submission: '12' };
const HOUR = 3_600_000;

function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

/** A pod of job `jobId` (submission 12) whose node container failed with `exitCode` at second `s` of T0's minute. */
const failedPod = (jobId: string, exitCode: number, s = 0, name = `${jobId}-p`) =>
  pod(name, { exitCode, finishedAt: `2026-01-01T00:00:${String(s).padStart(2, '0')}Z` }, { [Labels.jobId]: jobId, [Labels.submission]: '12' });
const job = (jobId: string): JobKey => ({ jobId, submission: '12' });

const arbHeard = fc.array(fc.record({ cluster: fc.constantFrom('worker-1', 'worker-2'), pod: arbPod, deleting: fc.boolean() }), { maxLength: 12 });

describe('ExitCodeMemory', () => {
  it("remembers per cluster and job the first failure of every pod version heard that was not being deleted: what exitCodeOf would read of them all", () => {
    fc.assert(
      fc.property(arbHeard, (heard) => {
        const memory = new ExitCodeMemory({ keepMs: HOUR });
        for (const h of heard) {
          const seen: Pod = structuredClone(h.pod);
          if (h.deleting) seen.metadata!.deletionTimestamp = T1;
          memory.heard(h.cluster, seen);
        }
        for (const cluster of ['worker-1', 'worker-2']) {
          const alive = heard.filter((h) => h.cluster === cluster && !h.deleting).map((h) => h.pod);
          expect(memory.failureOf(cluster, JOB)?.exitCode, cluster).toBe(exitCodeOf(trainJob(), alive));
          expect(memory.failureOf(cluster, JOB), cluster).toEqual(firstFailure(nodeFailuresOf(JOB, alive)));
        }
      }),
    );
  });

  it('keeps the first failed node container, not the first heard nor the last', () => {
    const memory = new ExitCodeMemory({ keepMs: HOUR });
    memory.heard('worker-1', failedPod(JOB_ID, 137, 30, 'p-late'));
    memory.heard('worker-1', failedPod(JOB_ID, 125, 10, 'p-early'));
    memory.heard('worker-1', failedPod(JOB_ID, 1, 20, 'p-middle'));
    expect(memory.failureOf('worker-1', JOB)).toMatchObject({ pod: 'p-early', exitCode: 125 });
    // Another cluster, another submission: nothing.
    expect(memory.failureOf('worker-2', JOB)).toBeUndefined();
    expect(memory.failureOf('worker-1', { jobId: JOB_ID, submission: '11' })).toBeUndefined();
    // A pod that did not fail, or its deletion (the container killed), changes nothing.
    memory.heard('worker-1', pod('p-ok', { exitCode: 0, finishedAt: T0 }));
    const killed = failedPod(JOB_ID, 143, 0, 'p-killed');
    killed.metadata!.deletionTimestamp = T0;
    memory.heard('worker-1', killed);
    expect(memory.failureOf('worker-1', JOB)).toMatchObject({ pod: 'p-early', exitCode: 125 });
  });

  it('forgets an entry keepMs after it was first remembered, not sooner; a later earlier failure does not make it younger', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10 * HOUR }), fc.integer({ min: 0, max: 20 * HOUR }), (keepMs, waited) => {
        const c = clock();
        const memory = new ExitCodeMemory({ keepMs, now: c.now });
        memory.heard('worker-1', failedPod(JOB_ID, 3, 30));
        c.advance(Math.floor(waited / 2));
        memory.heard('worker-1', failedPod(JOB_ID, 2, 10));
        c.advance(waited - Math.floor(waited / 2));
        const kept = memory.failureOf('worker-1', JOB);
        if (waited < keepMs) expect(kept?.exitCode).toBe(2);
        else expect(kept).toBeUndefined();
        expect(memory.size).toBe(waited < keepMs ? 1 : 0);
      }),
    );
  });

  it('holds at most maxEntries, dropping the oldest first, however many jobs fail', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 20 }), fc.array(fc.integer({ min: 0, max: 40 }), { maxLength: 80 }), (maxEntries, jobs) => {
        const memory = new ExitCodeMemory({ keepMs: HOUR, maxEntries });
        // The model: jobs in the order first remembered; one heard again keeps its place, one dropped comes back last.
        let model: string[] = [];
        for (const n of jobs) {
          const id = `job-${n}`;
          memory.heard('worker-1', failedPod(id, 1 + n));
          if (!model.includes(id)) model = [...model, id].slice(-maxEntries);
          expect(memory.size).toBeLessThanOrEqual(maxEntries);
        }
        const everyJob = [...new Set(jobs)].map((n) => `job-${n}`);
        expect(everyJob.filter((id) => memory.failureOf('worker-1', job(id)) !== undefined).sort()).toEqual([...model].sort());
      }),
    );
  });

  it('past the cap the oldest go, the newest stay', () => {
    const memory = new ExitCodeMemory({ keepMs: HOUR, maxEntries: 3 });
    for (const id of ['a', 'b', 'c', 'd', 'e']) memory.heard('worker-1', failedPod(id, 9));
    expect(['a', 'b', 'c', 'd', 'e'].map((id) => memory.failureOf('worker-1', job(id))?.exitCode ?? null)).toEqual([null, null, 9, 9, 9]);
  });
});
