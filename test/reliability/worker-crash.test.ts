// Worker crash at every other step of a Start (docs/reliability.md): between every pair of
// activities, after each write landed unseen, inside the Kueue wait, and during the compensation.
// The two crash points npm test already runs are in test/integration/reliability/worker-crash.test.ts.
import { describe, it } from 'vitest';
import { CRASH_POINTS, QUICK_CRASH_POINTS, runCrashPoint } from './support/crash-points.js';
import { reliabilityLab } from './support/lab.js';

describe('worker crash: kill -9 mid-Start, a new worker process finishes it', () => {
  const lab = reliabilityLab('crash');
  for (const point of CRASH_POINTS.filter((p) => !QUICK_CRASH_POINTS.includes(p.id))) {
    it(point.where, () => runCrashPoint(lab, point), 180_000);
  }
});
