// Bad input through the real servers, in full (docs/reliability.md): 10,000 generated StartRequests
// per run sent as they are to StartTrainJob on a worker process, 40 at a time. Each ends, within a
// bound, in a result or a typed failure naming its reasons; nothing is created for a request refused
// before step 5; the namespace then holds the started jobs' TrainJobs and copies and nothing else.
import { describe, expect, it } from 'vitest';
import { fuzzStarts } from './support/fuzz-start.js';
import { reliabilityLab } from './support/lab.js';

describe('bad input: StartRequest fuzz through the real servers', () => {
  const lab = reliabilityLab('fuzz');
  it('10,000 generated requests each end in a result or a typed failure; refused ones create nothing', async () => {
    const figures = await fuzzStarts(lab, { cases: 10_000, concurrency: 40 });
    lab.figure('fuzz StartRequest (real servers)', { ...figures });
    expect(figures.outcomes.started ?? 0).toBeGreaterThan(100);
  }, 3_600_000);
});
