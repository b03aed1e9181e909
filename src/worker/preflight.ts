// The worker's preflight: ProbeBackend at boot and then periodically; its result is what step 1
// of every Start reads. One probe per namespace runs at a time, however many workers there are.
import type { Client } from '@temporalio/client';
import { areDefinite, type SettingsSource } from '../activities/settings-activities.js';
import type { Config } from '../model/config.js';
import { parseGoDuration, toMillis } from '../model/duration.js';
import type { BackendGates } from '../model/results.js';
import type { Log } from '../observability/log.js';
import { startProbe } from '../client/dispatch-client.js';

export async function runPreflight(client: Client, taskQueue: string, gates: SettingsSource): Promise<BackendGates> {
  const proven = await startProbe(client, taskQueue, gates.config.namespace);
  gates.update(proven);
  return proven;
}

/**
 * How soon the preflight runs again after one that definitely refused a gate, doubling up to the
 * interval: a missing probe runtime or a denied permission does not pass in seconds.
 */
export const UNPROVEN_RETRY_MS = 5_000;

/**
 * How soon it runs again after one that left a gate unknown (no answer), or failed: at once, less a
 * breath. A probe caught by a passing fault (the API server away, Kueue restarting) leaves Starts
 * refused (ErrUnreachable) or waiting at step 1 until a probe ends with a definite answer, so the
 * next one must begin as soon as the fault may have passed (docs/contract.md §8): the probe's own
 * calls retry until the API answers, so it ends soon after the fault does.
 */
export const UNKNOWN_RETRY_MS = 1_000;

/**
 * The wait before the next preflight: the interval once all gates are proven; after gates left
 * unknown, UNKNOWN_RETRY_MS; after a definite refusal, a doubling retry.
 */
export function nextPreflightMs(intervalMs: number, unprovenInARow: number, unknown = false): number {
  if (unprovenInARow === 0) return intervalMs;
  if (unknown) return Math.min(intervalMs, UNKNOWN_RETRY_MS);
  return Math.min(intervalMs, UNPROVEN_RETRY_MS * 2 ** (unprovenInARow - 1));
}

/**
 * How long a probe may run before its start gate counts as unknown (docs/contract.md §8): the
 * longest a probe Start's steps take (each call within CallBound, step 9 within timeouts.workload,
 * then the stop), with room for retries: timeouts.workload + 8 × CallBound.
 */
export function probeBoundMs(config: Pick<Config, 'timeouts'>): number {
  const ms = (duration: string) => toMillis(parseGoDuration(duration)!);
  return ms(config.timeouts.workload) + 8 * ms(config.timeouts.call);
}

/**
 * Runs the preflight every interval until the signal aborts; a failed run keeps the last result. A
 * probe still running past its bound leaves the start gate unknown until it ends.
 */
export async function preflightLoop(
  client: Client,
  taskQueue: string,
  gates: SettingsSource,
  intervalMs: number,
  signal: AbortSignal,
  log: Log,
): Promise<void> {
  let unproven = 0;
  while (!signal.aborted) {
    let unknown = true;
    try {
      // A probe in flight when the worker stops would never finish (no worker runs it), so
      // shutdown must not wait for it; and its client calls are cancelled with the loop: left
      // alone, the long poll for its result held the process for up to 20 s after the worker
      // stopped, and a call retried after the connection closed crashed it ("Channel has been
      // shut down", exit 1).
      const boundMs = probeBoundMs(gates.config);
      const bound = setTimeout(() => {
        gates.startUnknown(`the probe did not end within ${boundMs / 1000}s`);
        log('preflight probe past its bound: the start gate is unknown until it ends', { boundMs }, 'warn');
      }, boundMs);
      const probing = probeUntilAborted(client, taskQueue, gates.config.namespace, signal);
      probing.catch(() => undefined); // cancelled once the race below has ended: nothing waits for it then
      const result = await unlessAborted(probing, signal).finally(() => clearTimeout(bound));
      if (result) gates.update(result);
      // A gate left unproven makes this worker refuse Starts at step 1 until a later preflight proves it.
      const proven = result && result.reach && result.write && result.start;
      if (result) log('preflight finished', { reach: result.reach, write: result.write, start: result.start, reasons: result.reasons }, proven ? 'info' : 'warn');
      unproven = proven ? 0 : unproven + 1;
      unknown = !areDefinite(result);
    } catch (error) {
      log('preflight failed', { error: (error as Error).message }, 'error');
      unproven += 1;
    }
    await sleepUnlessAborted(nextPreflightMs(intervalMs, unproven, unknown), signal);
  }
}

/**
 * One probe whose client calls are cancelled when `signal` aborts. The client adds an abort
 * listener per call to the signal in its call context and never removes it, so the calls get a
 * signal of this run only, linked to the loop's for as long as the run lasts: on the loop's
 * long-lived signal the listeners piled up at every preflight, for the worker's whole life
 * (Node's MaxListenersExceededWarning in `npm start`). Only the calls run in that context: what the
 * result sets off (the gates' listeners) must not inherit a signal that is dropped with the run.
 */
async function probeUntilAborted(client: Client, taskQueue: string, namespace: string, signal: AbortSignal): Promise<BackendGates> {
  const run = new AbortController();
  const forward = () => run.abort();
  signal.addEventListener('abort', forward, { once: true });
  try {
    return await client.connection.withAbortSignal(run.signal, () => startProbe(client, taskQueue, namespace));
  } finally {
    signal.removeEventListener('abort', forward);
  }
}

/**
 * Waits `ms`, or less if the signal aborts. An already-aborted signal never fires 'abort' again, so
 * it must end the wait at once: a worker stopped during a preflight would otherwise wait out the
 * whole interval before exiting, and Kubernetes or Compose would kill it instead of letting it drain.
 */
export function sleepUnlessAborted(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise<void>((resolve) => {
    // The listener goes with the timer: a loop sleeps here every second on one long-lived signal.
    const onAbort = () => (clearTimeout(timer), resolve());
    const timer = setTimeout(() => (signal.removeEventListener('abort', onAbort), resolve()), ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * What `work` answers, or nothing once the signal aborts, whichever comes first. The listener goes
 * when the work ends: one left per preflight would pile up on the worker's signal.
 */
function unlessAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T | undefined> {
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise<T | undefined>((resolve, reject) => {
    const onAbort = () => resolve(undefined);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
