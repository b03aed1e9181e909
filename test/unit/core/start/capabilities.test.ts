import { describe, expect, it } from 'vitest';
import { capabilities } from '../../../../src/core/start/capabilities.js';
import type { RuntimeName } from '../../../../src/core/objects/runtime-name.js';
import { ConfigSchema, type ConfigInput } from '../../../../src/model/config.js';
import { DispatchError } from '../../../../src/model/errors.js';
import { CapabilitiesSchema } from '../../../../src/model/results.js';
import type { TrainerRuntime } from '../../../../src/model/kube.js';
import { dispatchKind, dispatchKindWith } from '../../../fixtures/runtimes/load.js';

type Obj = Record<string, unknown>;

const REF: RuntimeName = { kind: 'ClusterTrainingRuntime', name: 'dispatch-kind' };
const config = (input: Partial<ConfigInput> = {}) => ConfigSchema.parse({ namespace: 'ml-jobs', ...input });

/** The example with its trainer Job spec and mlPolicy changed. */
const example = (change: (job: Obj, mlPolicy: Obj) => void): TrainerRuntime => dispatchKindWith(({ job, mlPolicy }) => change(job, mlPolicy));

function refusal(run: () => unknown): DispatchError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(DispatchError);
    return error as DispatchError;
  }
  throw new Error('not refused');
}

describe('capabilities (docs/runtime-rules.md: "Capabilities(ctx, &spec) applies the same rules")', () => {
  it('the example runtime is supported; ProcsPerNode is answered no (no mlPolicy.torch)', () => {
    const answer = capabilities(dispatchKind(), REF, config());
    expect(answer).toEqual({ runtime: 'ClusterTrainingRuntime/dispatch-kind', procsPerNode: false });
    expect(CapabilitiesSchema.parse(answer)).toEqual(answer);
  });

  it('a torch runtime answers ProcsPerNode yes', () => {
    expect(capabilities(example((_, ml) => (ml.torch = {})), REF, config()).procsPerNode).toBe(true);
  });

  it('a runtime that breaks the rules is ErrUnsupported at step 3, naming every reason', () => {
    const runtime = example((job, ml) => {
      job.backoffLimit = 1;
      ml.mpi = {};
    });
    const error = refusal(() => capabilities(runtime, REF, config()));
    expect(error.type).toBe('ErrUnsupported');
    expect(error.step).toBe(3);
    expect(error.reasons).toHaveLength(2);
    expect(error.reasons[0]).toContain('spec.mlPolicy.mpi is set');
    expect(error.reasons[1]).toContain('spec.backoffLimit is 1');
    expect(error.message).toContain(error.reasons.join('; '));
  });

  it('a runtime outside the allow-list is ErrUnsupported at step 3', () => {
    const error = refusal(() => capabilities(dispatchKind(), REF, config({ runtimes: ['TrainingRuntime/other'] })));
    expect(error.type).toBe('ErrUnsupported');
    expect(error.reasons).toEqual(["ClusterTrainingRuntime/dispatch-kind: not in the configured runtimes (TrainingRuntime/other), the site's allow-list"]);
  });

  it('under allowRankRestart, a waived runtime is supported and carries the IdentityWeakener reason', () => {
    const runtime = example((job) => (job.backoffLimitPerIndex = 1));
    expect(capabilities(runtime, REF, config({ allowRankRestart: true }))).toEqual({
      runtime: 'ClusterTrainingRuntime/dispatch-kind',
      procsPerNode: false,
      weakened:
        "allowRankRestart: the runtime's trainer job states backoffLimitPerIndex, so a failed rank can rerun under the same " +
        'DISPATCH_ATTEMPT and one execution can contain a restarted rank',
    });
    expect(refusal(() => capabilities(runtime, REF, config())).type).toBe('ErrUnsupported');
  });
});
