// The preflight loop ends as soon as the worker stops, also when it stops while a probe runs (the
// signal is then already aborted when the loop reaches its wait): nothing waits out the interval.
import { getEventListeners } from 'node:events';
import type { Client } from '@temporalio/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SettingsSource } from '../../../src/activities/settings-activities.js';
import { parseConfig } from '../../../src/config/load-config.js';
import { gateRefusal } from '../../../src/core/start/refusals.js';
import { nextPreflightMs, preflightLoop, probeBoundMs, sleepUnlessAborted, UNKNOWN_RETRY_MS, UNPROVEN_RETRY_MS } from '../../../src/worker/preflight.js';

const HOUR = 3_600_000;

/**
 * A client whose ProbeBackend answers as `execute` does, its calls run under the signal the loop
 * gives (the real connection cancels them when it aborts); `signals` records each.
 */
function probeClient(execute: () => Promise<unknown>, signals: AbortSignal[] = []): Client {
  // As the real connection does for each call made in that context: a listener never removed.
  const withAbortSignal = (signal: AbortSignal, fn: () => Promise<unknown>) => (signals.push(signal), signal.addEventListener('abort', () => undefined), fn());
  return { workflow: { execute }, connection: { withAbortSignal } } as unknown as Client;
}

/** A client whose ProbeBackend never finishes: no worker runs it. */
const hangingClient = probeClient(() => new Promise(() => undefined));
const gates = new SettingsSource(parseConfig({ namespace: 'ns' }));

describe('preflightLoop', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('a stop during a preflight ends the loop at once, not after the interval', async () => {
    const stop = new AbortController();
    let ended = false;
    const loop = preflightLoop(hangingClient, 'q', gates, HOUR, stop.signal, () => undefined).then(() => (ended = true));
    await vi.advanceTimersByTimeAsync(10);
    expect(ended).toBe(false);
    stop.abort();
    // No timer may be needed to end it: advancing by nothing lets only settled promises run.
    await vi.advanceTimersByTimeAsync(0);
    expect(ended).toBe(true);
    await loop;
  });

  it("the probe's client calls run under a signal the loop's aborts, so a stop cancels them: the long poll for its result held the process for 20 s", async () => {
    const signals: AbortSignal[] = [];
    const stop = new AbortController();
    const loop = preflightLoop(probeClient(() => new Promise(() => undefined), signals), 'q', gates, HOUR, stop.signal, () => undefined);
    await vi.advanceTimersByTimeAsync(10);
    expect(signals).toHaveLength(1);
    expect(signals[0]!.aborted).toBe(false);
    stop.abort();
    await loop;
    expect(signals[0]!.aborted).toBe(true);
  });

  it("each preflight's calls get a signal of their own, so the client's listeners (one per call, never removed) go with the run instead of piling up on the worker's signal", async () => {
    const signals: AbortSignal[] = [];
    const stop = new AbortController();
    const unknown = { reach: true, write: true, start: false, reasons: ['start: no answer'], startUnknown: true, checkedAt: '' };
    const loop = preflightLoop(probeClient(async () => unknown, signals), 'q', new SettingsSource(parseConfig({ namespace: 'ns' })), HOUR, stop.signal, () => undefined);
    await vi.advanceTimersByTimeAsync(20 * UNKNOWN_RETRY_MS);
    expect(signals.length).toBeGreaterThanOrEqual(15);
    expect(new Set(signals).size).toBe(signals.length);
    // What is left on the worker's signal: the wait between two preflights, nothing per run.
    expect(getEventListeners(stop.signal, 'abort').length).toBeLessThanOrEqual(1);
    stop.abort();
    await loop;
  });

  it('a preflight that definitely refuses a gate runs again after 5 s, doubling up to the interval; one that leaves a gate unknown, after 1 s; one that proves them all waits the interval', async () => {
    const unproven = { reach: true, write: true, start: false, reasons: ['start: create TrainJob: HTTP 422'], checkedAt: '' };
    const unknown = { ...unproven, reasons: ['start: create TrainJob: no answer'], startUnknown: true };
    const proven = { ...unproven, start: true, reasons: [] };
    const answers = [unknown, unproven, unproven, unknown, proven, proven];
    const runs: number[] = [];
    const client = probeClient(() => {
      runs.push(Date.now());
      return Promise.resolve(answers.shift() ?? proven);
    });
    const stop = new AbortController();
    const t0 = Date.now();
    const loop = preflightLoop(client, 'q', gates, HOUR, stop.signal, () => undefined);
    await vi.advanceTimersByTimeAsync(1_000 + 10_000 + 20_000 + 1_000 + HOUR);
    stop.abort();
    await loop;
    // unknown: 1 s; unproven (2nd in a row): 10 s; unproven (3rd): 20 s; unknown: 1 s; proven: the interval.
    expect(runs.map((t) => t - t0)).toEqual([0, 1_000, 11_000, 31_000, 32_000, 32_000 + HOUR]);
    expect([0, 1, 2, 3, 20].map((n) => nextPreflightMs(HOUR, n))).toEqual([HOUR, UNPROVEN_RETRY_MS, 10_000, 20_000, HOUR]);
    expect([1, 2, 20].map((n) => nextPreflightMs(HOUR, n, true))).toEqual([UNKNOWN_RETRY_MS, UNKNOWN_RETRY_MS, UNKNOWN_RETRY_MS]);
  });

  it("logs a preflight that proved every gate as info, one that left a gate unproven as warn (Starts are refused), one that failed as error, a probe past its bound as warn", async () => {
    const unproven = { reach: true, write: true, start: false, reasons: ['start: create TrainJob: HTTP 422'], checkedAt: '' };
    const proven = { ...unproven, start: true, reasons: [] };
    const answers: (() => Promise<unknown>)[] = [
      () => Promise.resolve(unproven),
      () => Promise.reject(new Error('no Temporal')),
      () => Promise.resolve(proven),
      () => new Promise(() => undefined),
    ];
    const lines: string[] = [];
    const store = new SettingsSource(parseConfig({ namespace: 'ns' }));
    const stop = new AbortController();
    const loop = preflightLoop(probeClient(() => answers.shift()!()), 'q', store, HOUR, stop.signal, (message, _fields, level = 'info') => lines.push(`${level}: ${message}`));
    await vi.advanceTimersByTimeAsync(UNPROVEN_RETRY_MS + 10_000 + HOUR + probeBoundMs(store.config));
    stop.abort();
    await loop;
    expect(lines).toEqual([
      'warn: preflight finished',
      'error: preflight failed',
      'info: preflight finished',
      'warn: preflight probe past its bound: the start gate is unknown until it ends',
    ]);
  });

  it('definiteGates waits for a preflight that decides (docs/contract.md §8): at once when definite, at the update that makes them so, or after its bound with what there is', async () => {
    const store = new SettingsSource(parseConfig({ namespace: 'ns' }));
    const settled = <T>(p: Promise<T>) => {
      const state: { value?: T; done: boolean } = { done: false };
      void p.then((value) => Object.assign(state, { value, done: true }));
      return state;
    };
    const unknown = { reach: true, write: true, start: false, startUnknown: true, reasons: ['start: no answer'], checkedAt: '1' };
    const unreached = { reach: false, write: false, start: false, reasons: ['reach: no answer'], checkedAt: '2' };
    const refused = { reach: true, write: true, start: false, reasons: ['start: HTTP 422'], checkedAt: '3' };
    // No preflight yet: it waits; an unknown or unreached update does not end the wait; a refusal does.
    const first = settled(store.definiteGates(30_000));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(first.done).toBe(false);
    store.update(unknown);
    store.update(unreached);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(first.done).toBe(false);
    store.update(refused);
    await vi.advanceTimersByTimeAsync(0);
    expect(first).toEqual({ done: true, value: refused });
    // Definite already: at once.
    const again = settled(store.definiteGates(30_000));
    await vi.advanceTimersByTimeAsync(0);
    expect(again).toEqual({ done: true, value: refused });
    // Unknown until the bound: the latest gates, unknown as they are.
    store.update({ ...refused, write: false, writeUnknown: true });
    const bounded = settled(store.definiteGates(30_000));
    await vi.advanceTimersByTimeAsync(29_999);
    expect(bounded.done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(bounded.value).toMatchObject({ writeUnknown: true });
  });

  it('a probe still running past its bound leaves the start gate unknown (Starts get ErrUnreachable), until it ends', async () => {
    const store = new SettingsSource(parseConfig({ namespace: 'ns' }));
    const proven = { reach: true, write: true, start: true, reasons: [], checkedAt: 'earlier' };
    store.update(proven);
    let answer: (g: typeof proven) => void = () => undefined;
    const client = probeClient(() => new Promise((resolve) => (answer = resolve)));
    const stop = new AbortController();
    const loop = preflightLoop(client, 'q', store, HOUR, stop.signal, () => undefined);
    const bound = probeBoundMs(store.config);
    expect(bound).toBe(60_000 + 8 * 30_000);
    await vi.advanceTimersByTimeAsync(bound - 1);
    expect(store.latestGates()).toEqual(proven);
    await vi.advanceTimersByTimeAsync(1);
    expect(store.latestGates()).toMatchObject({ reach: true, write: true, start: false, startUnknown: true, reasons: ['start: the probe did not end within 300s'] });
    expect(gateRefusal(store.latestGates())).toMatchObject({ type: 'ErrUnreachable', step: 1, reasons: ['start: the probe did not end within 300s'] });
    answer(proven);
    await vi.advanceTimersByTimeAsync(0);
    expect(store.latestGates()).toEqual(proven);
    stop.abort();
    await loop;
  });

  it('before the first preflight has ended, a probe past its bound leaves no gates: step 1 refuses ErrUnreachable naming reach, as before', async () => {
    const store = new SettingsSource(parseConfig({ namespace: 'ns' }));
    const stop = new AbortController();
    const loop = preflightLoop(hangingClient, 'q', store, HOUR, stop.signal, () => undefined);
    await vi.advanceTimersByTimeAsync(probeBoundMs(store.config) + 1);
    expect(store.latestGates()).toBeUndefined();
    expect(gateRefusal(store.latestGates())).toMatchObject({ type: 'ErrUnreachable', reasons: ['reach: not proven (no preflight has completed yet)'] });
    stop.abort();
    await loop;
  });

  it('sleepUnlessAborted: an already-aborted signal ends the wait at once; a later abort ends it early; otherwise it waits ms', async () => {
    const done = (p: Promise<void>) => {
      const state = { settled: false };
      void p.then(() => (state.settled = true));
      return state;
    };
    const aborted = done(sleepUnlessAborted(HOUR, AbortSignal.abort()));
    await vi.advanceTimersByTimeAsync(0);
    expect(aborted.settled).toBe(true);

    const later = new AbortController();
    const early = done(sleepUnlessAborted(HOUR, later.signal));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(early.settled).toBe(false);
    later.abort();
    await vi.advanceTimersByTimeAsync(0);
    expect(early.settled).toBe(true);

    const full = done(sleepUnlessAborted(5_000, new AbortController().signal));
    await vi.advanceTimersByTimeAsync(4_999);
    expect(full.settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(full.settled).toBe(true);
  });
});
