// The worker's heap limits. Node sizes the heap from the host (about 4 GB on a 24 GiB machine,
// whatever the container's limit), and V8 keeps garbage it is not pressed to collect: 1,000 waiting
// Kueue Starts made a 468 MiB worker with Node's defaults, 376-386 MiB with a 192 MB old space,
// and 336 MiB with young semi-spaces of 4 MB as well, for ~14 % more worker CPU per Start at full
// load with 2 MB ones (docs/performance.md); the live heap was 85 MiB. They are node flags, so the
// Dockerfile and the Kubernetes Deployment set them through NODE_OPTIONS; the worker only reports
// what it runs with.
import { getHeapStatistics } from 'node:v8';

/** --max-old-space-size of the worker, in MB, as the Dockerfile and deploy/kubernetes set it. */
export const WORKER_HEAP_LIMIT_MB = 192;

/** Young generation semi-space size, in MB (V8's default is up to 16 on a 64-bit host). */
export const WORKER_SEMI_SPACE_MB = 4;

export const WORKER_NODE_OPTIONS = `--max-old-space-size=${WORKER_HEAP_LIMIT_MB} --max-semi-space-size=${WORKER_SEMI_SPACE_MB}`;

/** The heap limit this process runs with, in MiB, and a warning when it was left to Node's default. */
export function heapLimit(): { heapLimitMiB: number; warning?: string } {
  const heapLimitMiB = Math.round(getHeapStatistics().heap_size_limit / 2 ** 20);
  // The limit is old space plus young space, so a set flag reads a few MiB above its value.
  if (heapLimitMiB <= 4 * WORKER_HEAP_LIMIT_MB) return { heapLimitMiB };
  return {
    heapLimitMiB,
    warning: `the heap limit is ${heapLimitMiB} MiB, Node's default for this host: set NODE_OPTIONS=${WORKER_NODE_OPTIONS} (as the Dockerfile does) or the worker keeps garbage up to that size (docs/performance.md)`,
  };
}
