// Builds the workflow bundle at build time (npm run build:bundle), as samples-typescript's
// production sample does: the worker then loads it through DISPATCH_WORKFLOW_BUNDLE
// (src/worker/workflow-code.ts) instead of running webpack at every start, and the Dockerfile sets
// that variable to it. The bundle is made from the workflow sources, the same ones the tests bundle.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Where the bundle is written, relative to the repository (the Dockerfile copies dist/ whole). */
export const WORKFLOW_BUNDLE = 'dist/workflow-bundle.js';

const root = join(import.meta.dirname, '..');

export async function buildWorkflowBundle(out = join(root, WORKFLOW_BUNDLE)): Promise<string> {
  // Loaded here, not at the top, so that importing the constant above does not load the worker.
  const { bundleWorkflowCode } = await import('@temporalio/worker');
  const { code } = await bundleWorkflowCode({ workflowsPath: join(root, 'src', 'workflows', 'index.ts') });
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, code);
  return `wrote ${relative(process.cwd(), out) || out} (${Math.round(code.length / 1024)} KiB)`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(await buildWorkflowBundle(process.argv[2]));
}
