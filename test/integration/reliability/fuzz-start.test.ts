// Bad input through the real servers, the part npm test runs (docs/reliability.md): generated
// StartRequests, most of them mutations of valid ones, sent as they are to StartTrainJob on a
// worker process. Each ends, within a bound, in a result or a typed failure naming its reasons;
// nothing is created for a request refused before step 5; the namespace then holds the started
// jobs' TrainJobs and copies and nothing else. test/reliability/fuzz-start.test.ts sends 10,000.
import { describe, expect, it } from 'vitest';
import { fuzzStarts } from '../../reliability/support/fuzz-start.js';
import { reliabilityLab } from '../../reliability/support/lab.js';

describe('bad input: StartRequest fuzz through the real servers', () => {
  const lab = reliabilityLab('fuzz-quick');
  it('300 generated requests each end in a result or a typed failure; refused ones create nothing', async () => {
    const figures = await fuzzStarts(lab, { cases: 300, concurrency: 20 });
    lab.figure('fuzz StartRequest (real servers)', { ...figures });
    expect(figures.outcomes.started ?? 0).toBeGreaterThan(0);
  }, 600_000);
});
