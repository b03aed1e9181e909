// Worker crash, the quick part that npm test runs (docs/reliability.md): kill -9 of the worker
// process while the TrainJob create has landed but its answer has not, and during the compensation
// once its delete has landed; a new worker process finishes each Start, and the cluster then holds
// exactly one TrainJob and one owned copy for a started job, nothing for a failed one. The other
// crash points run in test/reliability/worker-crash.test.ts. The compensation point's Kueue is the
// stand-in (no Workload at all), so it runs on a cluster of its own without the real Kueue.
import { describe, it } from 'vitest';
import { CRASH_POINTS, QUICK_CRASH_POINTS, runCrashPoint } from '../../reliability/support/crash-points.js';
import { kueueFreeLab } from '../../reliability/support/kueue-free-lab.js';
import { reliabilityLab } from '../../reliability/support/lab.js';

const quick = CRASH_POINTS.filter((p) => QUICK_CRASH_POINTS.includes(p.id));

describe('worker crash: kill -9 mid-Start, a new worker process finishes it', () => {
  const lab = reliabilityLab('crash-quick');
  for (const point of quick.filter((p) => !p.kueue)) {
    it(point.where, () => runCrashPoint(lab, point), 180_000);
  }
});

describe('worker crash in Kueue mode (the Kueue stand-in, on a cluster without the real Kueue)', () => {
  const lab = kueueFreeLab('crash-quick-kueue');
  for (const point of quick.filter((p) => p.kueue)) {
    it(point.where, () => runCrashPoint(lab, point), 180_000);
  }
});
