// What the integration globalSetup shares with every test file: how to reach the one cluster and
// the one Temporal server of this test run.
import { inject } from 'vitest';
import type { StackInfo } from '../../../dev/harness/stack.js';

declare module 'vitest' {
  export interface ProvidedContext {
    stack: StackInfo;
  }
}

/** The running stack: kube API server, credentials, namespace, Temporal address, log folder. */
export function stackInfo(): StackInfo {
  return inject('stack');
}
