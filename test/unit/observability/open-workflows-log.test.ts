// The open-workflow counts behind dispatch_watches_waiting and dispatch_starts_in_flight: a count
// that fails leaves the gauges without a sample and is logged once, as a warning, when it starts
// failing, and once, as news, when it answers again.
import type { Client } from '@temporalio/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openWorkflowCounter } from '../../../src/observability/open-workflows.js';

/** A client whose visibility count answers `answer()` (5 open) or throws. */
function countingClient(answer: () => boolean): Client {
  const count = () => (answer() ? Promise.resolve({ count: 5 }) : Promise.reject(new Error('visibility unanswered')));
  return { workflow: { count }, withDeadline: (_deadline: number, fn: () => Promise<unknown>) => fn() } as unknown as Client;
}

describe('openWorkflowCounter', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('logs the start of a failing count as warn, once, and its end as info', async () => {
    const answers = [false, false, true];
    let answering = false;
    const lines: string[] = [];
    const counts = openWorkflowCounter(countingClient(() => answering), 'q', (message, _fields, level = 'info') => lines.push(`${level}: ${message.split(':')[0]}`));
    for (const next of answers) {
      answering = next;
      const result = await counts();
      expect(result === undefined).toBe(!next);
      await vi.advanceTimersByTimeAsync(10_000); // past the freshness of a count
    }
    expect(lines).toEqual(['warn: open workflow counts unanswered', 'info: open workflow counts answered again']);
  });
});
