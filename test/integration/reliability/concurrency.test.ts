// Concurrency, the part npm test runs (docs/reliability.md): 50 Starts at once on one worker
// process, 40 distinct plus 10 duplicates of one, 4 of the distinct ones failing at read-back:
// exactly 36 TrainJobs remain, each with one copy it owns. The 200-Start run is in
// test/reliability/concurrency.test.ts.
import { describe, expect, it } from 'vitest';
import { runConcurrency } from '../../reliability/support/concurrency.js';
import { reliabilityLab } from '../../reliability/support/lab.js';

describe('concurrency: 50 Starts at once', () => {
  const lab = reliabilityLab('load-quick');
  it('40 distinct + 10 duplicates of one, 4 failing at read-back: 36 TrainJobs, one copy each, nothing else', async () => {
    const figures = await runConcurrency(lab, { distinct: 40, duplicates: 10, failing: 4, call: '20s' });
    lab.figure('concurrency', { ...figures });
    expect(figures).toMatchObject({ starts: 50, trainJobs: 36, copies: 36, started: 46, failed: 4 });
  }, 300_000);
});
