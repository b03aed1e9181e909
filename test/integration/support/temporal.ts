// Temporal for integration tests: the run's one dev server (started by globalSetup through
// TestWorkflowEnvironment.createLocal), reached from each test file; tests isolate themselves by
// task queue.
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { stackInfo } from './context.js';
import { uniqueName } from './kube.js';

/**
 * A test environment on the shared dev server (or the one at `address`). Call `teardown()` when
 * done (it leaves the server up).
 */
export async function temporalEnv(address = stackInfo().temporal.address): Promise<TestWorkflowEnvironment> {
  return TestWorkflowEnvironment.createFromExistingServer({
    address,
    namespace: stackInfo().temporal.namespace,
  });
}

/** A task queue no other test of this run uses. */
export function uniqueTaskQueue(prefix = 'test'): string {
  return uniqueName(prefix);
}
