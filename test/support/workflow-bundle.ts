// The workflow bundle tests run: src/workflows with the worker's workflow interceptors, built once
// per test file's process (webpack takes seconds). Shared by the integration harness and the unit
// tests on the time-skipping server, so neither pulls in the other's servers.
import { bundleWorkflowCode } from '@temporalio/worker';
import { workflowInterceptorModules } from '../../src/observability/interceptors.js';

let bundle: Promise<{ code: string }> | undefined;

export function workflowBundle(): Promise<{ code: string }> {
  bundle ??= workflowBundleOf(new URL('../../src/workflows/index.ts', import.meta.url).pathname);
  return bundle;
}

/** A bundle of other workflow code with the worker's interceptors (e.g. a next build's, test/integration/rollout). */
export function workflowBundleOf(workflowsPath: string): Promise<{ code: string }> {
  return bundleWorkflowCode({
    workflowsPath,
    workflowInterceptorModules: workflowInterceptorModules(),
    logger: { trace() {}, debug() {}, info() {}, warn() {}, error: console.error, log() {} } as never,
  });
}
