// Concurrency (docs/reliability.md): 200 Starts at once on one worker process, 150 distinct requests
// plus 50 duplicates of one of them, 20 of the distinct ones made to fail at read-back: exactly 130
// TrainJobs remain, each with one runtime copy it owns; no duplicates, no leaks. Reports the elapsed
// time and the worker's peak RSS.
import { describe, expect, it } from 'vitest';
import { runConcurrency } from './support/concurrency.js';
import { reliabilityLab } from './support/lab.js';

describe('concurrency: 200 Starts at once', () => {
  const lab = reliabilityLab('load');
  it('150 distinct + 50 duplicates of one, 20 failing at read-back: 130 TrainJobs, one copy each, nothing else', async () => {
    const figures = await runConcurrency(lab, { distinct: 150, duplicates: 50, failing: 20, call: '10s' });
    lab.figure('concurrency', { ...figures });
    expect(figures).toMatchObject({ starts: 200, trainJobs: 130, copies: 130, started: 180, failed: 20 });
  }, 900_000);
});
