// sleepOrWake (src/activities/context.ts): a check loop's wait that ends at the interval or at a
// wake, and leaves no timer and no listener on the activity's signal behind either way.
import { getEventListeners } from 'node:events';
import { Context } from '@temporalio/activity';
import { CancelledFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { describe, expect, it } from 'vitest';
import { sleepOrWake } from '../../../src/activities/context.js';

const listeners = () => getEventListeners(Context.current().cancellationSignal, 'abort').length;

describe('sleepOrWake', () => {
  it('woken forty times in a row, it leaves no listener on the signal; unwoken, it ends at the interval', async () => {
    const counts: { before: number; afterWakes: number; slept: number; afterInterval: number } = await new MockActivityEnvironment().run(async () => {
      const before = listeners();
      for (let i = 0; i < 40; i++) await sleepOrWake(60_000, [Promise.resolve()]);
      const afterWakes = listeners();
      const t0 = Date.now();
      await sleepOrWake(50, [new Promise(() => undefined)]);
      return { before, afterWakes, slept: Date.now() - t0, afterInterval: listeners() };
    });
    expect(counts.afterWakes).toBe(counts.before);
    expect(counts.afterInterval).toBe(counts.before);
    expect(counts.slept).toBeGreaterThanOrEqual(45);
  });

  it('a wake that fails ends the sleep too; cancellation rejects it as sleep() does', async () => {
    const env = new MockActivityEnvironment();
    await env.run(() => sleepOrWake(60_000, [Promise.reject(new Error('the list failed'))]));
    const cancelled = env.run(() => sleepOrWake(60_000, []));
    env.cancel();
    await expect(cancelled).rejects.toBeInstanceOf(CancelledFailure);
  });
});
