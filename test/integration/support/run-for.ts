// A runtime edit KWOK reads (dev/harness/kwok-stages), in a module of its own with no test-runner
// imports, so that scripts (scripts/record-histories.ts) can use it outside vitest.
import type { RuntimeEdit } from './runtimes.js';

/** The label and annotation that make KWOK run a Job's pod for `runFor` ("20s") before it completes. */
export const runFor =
  (duration: string): RuntimeEdit =>
  ({ job }) => {
    const key = 'test.dispatch.phpboyscout.uk/run-for';
    job.template.metadata = { labels: { [key]: 'true' }, annotations: { [key]: duration } };
  };
