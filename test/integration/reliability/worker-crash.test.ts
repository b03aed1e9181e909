// Worker crash, the quick part that npm test runs (docs/reliability.md): kill -9 of the worker
// process while the TrainJob create has landed but its answer has not, and during the compensation
// once its delete has landed; a new worker process finishes each Start, and the cluster then holds
// exactly one TrainJob and one owned copy for a started job, nothing for a failed one. The other
// crash points run in test/reliability/worker-crash.test.ts.
import { describe, it } from 'vitest';
import { CRASH_POINTS, QUICK_CRASH_POINTS, runCrashPoint } from '../../reliability/support/crash-points.js';
import { reliabilityLab } from '../../reliability/support/lab.js';

describe('worker crash: kill -9 mid-Start, a new worker process finishes it', () => {
  const lab = reliabilityLab('crash-quick');
  for (const point of CRASH_POINTS.filter((p) => QUICK_CRASH_POINTS.includes(p.id))) {
    it(point.where, () => runCrashPoint(lab, point), 180_000);
  }
});
