// Where the worker finds the workflow code: a prebuilt bundle in production (built by
// scripts/build-workflow-bundle.ts), else the workflow sources, bundled at start-up.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export type WorkflowCode = { workflowBundle: { codePath: string } } | { workflowsPath: string };

export function workflowCode(bundlePath = process.env.DISPATCH_WORKFLOW_BUNDLE): WorkflowCode {
  if (bundlePath) {
    if (!existsSync(bundlePath)) throw new Error(`workflow bundle ${bundlePath} does not exist`);
    return { workflowBundle: { codePath: bundlePath } };
  }
  // Running from src/ (tsx, vitest) the sources are .ts; from dist/ they are .js.
  for (const ext of ['.ts', '.js']) {
    const path = fileURLToPath(new URL(`../workflows/index${ext}`, import.meta.url));
    if (existsSync(path)) return { workflowsPath: path };
  }
  throw new Error('workflow sources not found next to the worker');
}
