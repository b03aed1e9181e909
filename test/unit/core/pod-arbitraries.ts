// Pods as Watch reads them for the exit code, for the properties of its rule
// (operations/node-failures.test.ts) and of the worker's memory (worker/exit-code-memory.test.ts).
import fc from 'fast-check';
import { Labels } from '../../../src/model/constants.js';
import type { Pod } from '../../../src/model/kube.js';
import { JOB_ID, pod } from './operation-fixtures.js';

const arbTime = fc.option(fc.integer({ min: 0, max: 59 }).map((s) => `2026-01-01T00:00:${String(s).padStart(2, '0')}Z`), { nil: undefined });
const arbExit = fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 255 }));
const arbLabels = fc.constantFrom<Record<string, string>>(
  { [Labels.jobId]: JOB_ID, [Labels.submission]: '12' },
  { [Labels.jobId]: JOB_ID, [Labels.submission]: '11' },
  { [Labels.jobId]: 'other', [Labels.submission]: '12' },
  {},
);
/** A pod of the job, of another submission or job, or unlabelled; its node container (or a sidecar) running, succeeded or failed, now and before. */
export const arbPod: fc.Arbitrary<Pod> = fc
  .record({
    name: fc.constantFrom('p-a', 'p-b', 'p-c', 'p-d'),
    exitCode: fc.option(arbExit, { nil: undefined }),
    finishedAt: arbTime,
    lastExitCode: fc.option(arbExit, { nil: undefined }),
    lastFinishedAt: arbTime,
    labels: arbLabels,
    sidecar: fc.boolean(),
  })
  .map(({ labels, sidecar, name, ...node }) => {
    const p = pod(name, node, labels);
    if (sidecar) p.status!.containerStatuses![0]!.name = 'sidecar';
    return p;
  });

