// The time-skipping test server for a file of workflow tests with stubbed activities: started (with
// the workflow bundle) before the file's tests and torn down after them, the worker's logs kept to
// errors.
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, makeTelemetryFilterString, Runtime } from '@temporalio/worker';
import { afterAll, beforeAll } from 'vitest';
import { createTimeSkippingEnv, type TimeSkippingEnv } from '../../../../dev/harness/time-skipping.js';
import { workflowBundle } from '../../../support/workflow-bundle.js';

/** Every stubbed KubeUnanswered attempt would be logged as a warning; the tests say what happened. */
function quietWorkerLogs(): void {
  try {
    Runtime.install({
      logger: new DefaultLogger('ERROR'),
      // Core warns on every worker that the test server does not advertise a newer server's capabilities.
      telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'ERROR' }), forward: {} } },
    });
  } catch {
    // A runtime installed earlier in this process keeps its own logger.
  }
}

/** Registers the file's beforeAll and afterAll; `env` is the server's, once beforeAll has run. */
export function timeSkippingSuite(): { readonly env: TestWorkflowEnvironment } {
  quietWorkerLogs();
  let ts: TimeSkippingEnv | undefined;
  beforeAll(async () => {
    // Fetches the test server on first use (Maven Central, about 45 s) when the Go servers are built.
    [ts] = await Promise.all([createTimeSkippingEnv(), workflowBundle()]);
  }, 300_000);
  afterAll(async () => ts?.teardown());
  return {
    get env() {
      if (!ts) throw new Error('timeSkippingSuite: the server is not up yet (use env inside a test)');
      return ts.env;
    },
  };
}
