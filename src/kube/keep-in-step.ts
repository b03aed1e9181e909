// A subscriber's feeds of WatchedLists (watched-lists.ts) stay up only while asked for: a feed no
// check asked for in IDLE_MS stops, and a feed that is down restarts only when asked after its
// RETRY_MS. A subscriber that reads no checks (the Watch waker, the worker clusters' pod watch)
// asks with snapshot() now and every `everyMs`, which keeps its feeds going and restarts them.
import { RETRY_MS } from './watched-lists.js';

/** Calls `ask` now and every `everyMs` (default RETRY_MS) until the returned function is called. */
export function keepInStep(ask: () => void, everyMs: number = RETRY_MS): () => void {
  ask();
  const timer = setInterval(ask, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
