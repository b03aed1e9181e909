// Start's one step runner (src/workflows/start-steps.ts): a step a fold answered is only entered; a
// step the fold stopped at goes on with the rest of its retry, or fails as unanswered when CallBound
// leaves none; any other step makes its whole call. Run here without a workflow: the runner only
// reports to the progress and calls what it is given.
import { describe, expect, it } from 'vitest';
import { DispatchError } from '../../../src/model/errors.js';
import type { StartActivities } from '../../../src/workflows/activity-proxies.js';
import { copyFoldAnswers, ownerFoldAnswers } from '../../../src/workflows/folded-steps.js';
import type { ProgressReporter } from '../../../src/workflows/progress.js';
import { StartSteps } from '../../../src/workflows/start-steps.js';

function fixture(options: { retriesAfterFirst?: boolean; retried?: boolean } = {}) {
  const entered: string[] = [];
  const calls: string[] = [];
  const progress = { enter: (phase: unknown, waitingFor: string) => entered.push(`${String(phase)} ${waitingFor}`) } as unknown as ProgressReporter;
  const call = (name: string) => async () => {
    calls.push(name);
    return { name };
  };
  const acts = {
    readRuntime: call('readRuntime'),
    createRuntimeCopy: call('createRuntimeCopy'),
    setOwner: call('setOwner'),
    readBack: call('readBack'),
    retriesAfterFirst: options.retriesAfterFirst ?? true,
    ...(options.retried === false
      ? {}
      : { retried: { readRuntime: call('retried readRuntime'), createRuntimeCopy: call('retried createRuntimeCopy'), setOwner: call('retried setOwner'), readBack: call('retried readBack') } }),
  } as unknown as StartActivities;
  return { entered, calls, steps: new StartSteps(progress, acts) };
}

describe('StartSteps', () => {
  it('without a fold, each step makes its whole call', async () => {
    const { steps, calls, entered } = fixture();
    await steps.run(2, 'runtime', (c) => c.readRuntime({} as never));
    await steps.run(5, 'copy', (c) => c.createRuntimeCopy({} as never));
    expect(calls).toEqual(['readRuntime', 'createRuntimeCopy']);
    expect(entered).toEqual(['2 runtime', '5 copy']);
  });

  it('a step the fold answered is entered and answers the fold’s value, without a call', async () => {
    const { steps, calls, entered } = fixture();
    steps.folded(copyFoldAnswers({ runtime: { kind: 'runtime' } as never, copy: { name: 'copy' } as never }));
    expect(await steps.run(2, 'runtime', (c) => c.readRuntime({} as never))).toEqual({ kind: 'runtime' });
    expect(await steps.run(5, 'copy', (c) => c.createRuntimeCopy({} as never))).toEqual({ name: 'copy' });
    expect(calls).toEqual([]);
    expect(entered).toEqual(['2 runtime', '5 copy']);
  });

  it('the step a fold stopped at goes on with the rest of its retry; the steps after it make their whole call', async () => {
    const { steps, calls } = fixture();
    steps.folded(copyFoldAnswers({ runtime: { kind: 'runtime' } as never, stopped: { step: 5, reason: 'timed out' } }));
    await steps.run(2, 'runtime', (c) => c.readRuntime({} as never));
    await steps.run(5, 'copy', (c) => c.createRuntimeCopy({} as never));
    expect(calls).toEqual(['retried createRuntimeCopy']);
    const stoppedFirst = fixture();
    stoppedFirst.steps.folded(copyFoldAnswers({ stopped: { step: 2, reason: 'timed out' } }));
    await stoppedFirst.steps.run(2, 'runtime', (c) => c.readRuntime({} as never));
    await stoppedFirst.steps.run(5, 'copy', (c) => c.createRuntimeCopy({} as never));
    expect(stoppedFirst.calls).toEqual(['retried readRuntime', 'createRuntimeCopy']);
  });

  it('step 7 counts as answered once the owner fold got to step 8', async () => {
    const { steps, calls } = fixture();
    steps.folded(ownerFoldAnswers({ stopped: { step: 8, reason: 'timed out' } }));
    await steps.run(7, 'owner', (c) => c.setOwner({} as never));
    await steps.run(8, 'read-back', (c) => c.readBack({} as never));
    expect(calls).toEqual(['retried readBack']);
  });

  it('when CallBound leaves no retry after the fold’s attempt, the step it stopped at fails as unanswered, naming the reason', async () => {
    const { steps, calls, entered } = fixture({ retriesAfterFirst: false });
    steps.folded(ownerFoldAnswers({ stopped: { step: 7, reason: 'timed out' } }));
    const failure = await steps.run(7, 'owner', (c) => c.setOwner({} as never), { namespace: 'ns', name: 'n', uid: 'u' }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(DispatchError);
    expect(failure).toMatchObject({ type: 'ErrRejected', step: 7, reasons: ['waiting for owner: timed out'], ref: { uid: 'u' } });
    expect(calls).toEqual([]);
    expect(entered).toEqual(['7 owner']);
  });
});
