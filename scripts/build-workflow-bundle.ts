// Builds the workflow bundles at build time (npm run build:bundle), as samples-typescript's
// production sample does: the worker loads one through DISPATCH_WORKFLOW_BUNDLE
// (src/worker/workflow-code.ts) instead of running webpack at every start; the Dockerfile sets it
// to WORKFLOW_BUNDLE. A prebuilt bundle carries its workflow interceptors (the worker cannot add
// them to it), so there are two, made from the same workflow sources as the tests bundle:
//   dist/workflow-bundle.js          dispatch's metrics interceptor (docs/observability.md)
//   dist/workflow-bundle-tracing.js  the same, plus OpenTelemetry's, for DISPATCH_TRACING
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Where the bundles are written, relative to the repository (the Dockerfile copies dist/ whole). */
export const WORKFLOW_BUNDLE = 'dist/workflow-bundle.js';
export const TRACING_WORKFLOW_BUNDLE = 'dist/workflow-bundle-tracing.js';

const root = join(import.meta.dirname, '..');

/** The workflow interceptor modules a bundle carries: dispatch's metrics always, OpenTelemetry's for tracing. */
export async function interceptorModules(tracing: boolean): Promise<string[]> {
  // Loaded here, not at the top, so that importing the constants above loads no worker code.
  const { workflowInterceptorModules } = await import('../src/observability/interceptors.js');
  // The module OpenTelemetryPlugin itself adds to a worker's workflow modules.
  const openTelemetry = createRequire(import.meta.url).resolve(
    '@temporalio/interceptors-opentelemetry/lib/workflow-interceptors',
  );
  return [...workflowInterceptorModules(), ...(tracing ? [openTelemetry] : [])];
}

export async function buildWorkflowBundle(out: string, tracing: boolean): Promise<string> {
  const { bundleWorkflowCode } = await import('@temporalio/worker');
  const { code } = await bundleWorkflowCode({
    workflowsPath: join(root, 'src', 'workflows', 'index.ts'),
    workflowInterceptorModules: await interceptorModules(tracing),
  });
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, code);
  return `wrote ${relative(process.cwd(), out) || out} (${Math.round(code.length / 1024)} KiB)`;
}

// `build-workflow-bundle.ts [folder]`: the bundles under the folder's dist/ (default: the
// repository's), so that scripts/build-image-tree.sh writes them into the image's tree.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const into = resolve(process.argv[2] ?? root);
  console.log(await buildWorkflowBundle(join(into, WORKFLOW_BUNDLE), false));
  console.log(await buildWorkflowBundle(join(into, TRACING_WORKFLOW_BUNDLE), true));
}
