// Worker crash at every other step of a Start (docs/reliability.md): between every pair of
// activities, after each write landed unseen, inside the Kueue wait, and during the compensation.
// The two crash points npm test already runs are in test/integration/reliability/worker-crash.test.ts.
// The points the Kueue stand-in serves run on a cluster of their own without the real Kueue.
import { describe, it } from 'vitest';
import { CRASH_POINTS, QUICK_CRASH_POINTS, runCrashPoint } from './support/crash-points.js';
import { kueueFreeLab } from './support/kueue-free-lab.js';
import { reliabilityLab } from './support/lab.js';

const slow = CRASH_POINTS.filter((p) => !QUICK_CRASH_POINTS.includes(p.id));

describe('worker crash: kill -9 mid-Start, a new worker process finishes it', () => {
  const lab = reliabilityLab('crash');
  for (const point of slow.filter((p) => !p.kueue)) {
    it(point.where, () => runCrashPoint(lab, point), 180_000);
  }
});

describe('worker crash in Kueue mode (the Kueue stand-in, on a cluster without the real Kueue)', () => {
  const lab = kueueFreeLab('crash-kueue');
  for (const point of slow.filter((p) => p.kueue)) {
    it(point.where, () => runCrashPoint(lab, point), 180_000);
  }
});
