import { describe, expect, it } from 'vitest';
import { checkProcsPerNode, checkRuntime, isRuntimeAllowed, weakenedReason } from '../../../../src/core/start/runtime-rules.js';
import type { RuntimeName } from '../../../../src/core/objects/runtime-name.js';
import { type Config, type ConfigInput, ConfigSchema } from '../../../../src/model/config.js';
import type { TrainerRuntime } from '../../../../src/model/kube.js';
import { type RuntimeParts, dispatchKind, dispatchKindWith } from '../../../fixtures/runtimes/load.js';

type Obj = Record<string, unknown>;

const REF: RuntimeName = { kind: 'ClusterTrainingRuntime', name: 'dispatch-kind' };
const HEAD = 'ClusterTrainingRuntime/dispatch-kind: ';
const NODE = `${HEAD}replicatedJobs[0] "node": `;

const config = (input: Partial<ConfigInput> = {}): Config => ConfigSchema.parse({ namespace: 'ml-jobs', ...input });

type Parts = RuntimeParts;
const example = (change: (parts: Parts) => void = () => {}): TrainerRuntime => dispatchKindWith(change);

/** The reasons the example with one change gets under a configuration. */
const reasonsOf = (change: (parts: Parts) => void, cfg: Config = config()): string[] => checkRuntime(example(change), REF, cfg).reasons;

describe('docs/runtime-rules.md, the example runtime', () => {
  it('test/fixtures/runtimes/dispatch-kind.yaml (internal/kindtest/testdata/base.yaml) satisfies every rule', () => {
    expect(checkRuntime(dispatchKind(), REF, config())).toEqual({ reasons: [], torch: false, runtime: 'ClusterTrainingRuntime/dispatch-kind' });
  });

  it('it satisfies every rule under publish.via: env and allowRankRestart too', () => {
    expect(checkRuntime(dispatchKind(), REF, config({ allowRankRestart: true })).reasons).toEqual([]);
    expect(checkRuntime(dispatchKind(), REF, config({ publish: { via: 'env' } })).reasons).toEqual([]);
  });

  it('reasons name the runtime as the job named it', () => {
    const ref: RuntimeName = { kind: 'TrainingRuntime', name: 'team-torch' };
    const runtime = example(({ job }) => (job.backoffLimit = 1));
    expect(checkRuntime(runtime, ref, config()).reasons[0]).toMatch(/^TrainingRuntime\/team-torch: replicatedJobs\[0\] "node": /);
  });
});

describe('docs/runtime-rules.md, rule: the runtime is in runtimes, if that list is set (the site\'s allow-list)', () => {
  it('an empty list allows any runtime', () => {
    expect(isRuntimeAllowed(REF, config())).toBe(true);
    expect(isRuntimeAllowed({ kind: 'TrainingRuntime', name: 'x' }, config({ runtimes: [] }))).toBe(true);
  });

  it('a set list allows exactly the runtimes it names, by kind and name', () => {
    const cfg = config({ runtimes: ['ClusterTrainingRuntime/dispatch-kind', 'TrainingRuntime/other'] });
    expect(isRuntimeAllowed(REF, cfg)).toBe(true);
    expect(isRuntimeAllowed({ kind: 'TrainingRuntime', name: 'dispatch-kind' }, cfg)).toBe(false);
    expect(isRuntimeAllowed({ kind: 'ClusterTrainingRuntime', name: 'other' }, cfg)).toBe(false);
  });

  it('a runtime outside the list gets exactly that reason', () => {
    const cfg = config({ runtimes: ['TrainingRuntime/a', 'ClusterTrainingRuntime/b'] });
    expect(checkRuntime(dispatchKind(), REF, cfg).reasons).toEqual([
      `${HEAD}not in the configured runtimes (TrainingRuntime/a, ClusterTrainingRuntime/b), the site's allow-list`,
    ]);
    expect(checkRuntime(dispatchKind(), REF, config({ runtimes: ['ClusterTrainingRuntime/dispatch-kind'] })).reasons).toEqual([]);
  });
});

describe('docs/runtime-rules.md, rule: mlPolicy names nothing but torch, besides numNodes', () => {
  it('a torch runtime passes and is torch', () => {
    const verdict = checkRuntime(example(({ mlPolicy }) => (mlPolicy.torch = { numProcPerNode: 'auto' })), REF, config());
    expect(verdict.reasons).toEqual([]);
    expect(verdict.torch).toBe(true);
  });

  it('a plain runtime (numNodes only, or no mlPolicy) passes and is not torch', () => {
    expect(checkRuntime(dispatchKind(), REF, config()).torch).toBe(false);
    const bare = checkRuntime(example(({ spec }) => delete spec.mlPolicy), REF, config());
    expect(bare).toMatchObject({ reasons: [], torch: false });
  });

  it.each(['mpi', 'jax', 'flux', 'xgboost'])('%s is refused, naming what it found', (policy) => {
    expect(reasonsOf(({ mlPolicy }) => (mlPolicy[policy] = {}))).toEqual([
      `${HEAD}spec.mlPolicy.${policy} is set; mlPolicy may name nothing but torch besides numNodes (v1 runs plain and torch runtimes only)`,
    ]);
  });

  it('each policy besides torch is its own reason; an explicit null names nothing', () => {
    const reasons = reasonsOf(({ mlPolicy }) => Object.assign(mlPolicy, { torch: {}, mpi: { numProcPerNode: 1 }, jax: {}, flux: null }));
    expect(reasons).toHaveLength(2);
    expect(reasons[0]).toContain('spec.mlPolicy.mpi is set');
    expect(reasons[1]).toContain('spec.mlPolicy.jax is set');
  });
});

describe('docs/runtime-rules.md, rule: the replicated jobs are the trainer one and nothing else', () => {
  const initializer = { name: 'dataset-initializer', template: { metadata: { labels: { 'trainer.kubeflow.org/trainjob-ancestor-step': 'dataset-initializer' } }, spec: {} } };
  const because = 'the replicated jobs must be the trainer one and nothing else (initializers, MPI launchers and other steps were never exercised)';

  it('an initializer beside the trainer job is refused, by index and name', () => {
    expect(reasonsOf(({ replicatedJobs }) => replicatedJobs.unshift(structuredClone(initializer)))).toEqual([
      `${HEAD}replicatedJobs[0] "dataset-initializer": not the trainer job; ${because}`,
    ]);
  });

  it('a job without a name is named by its index', () => {
    expect(reasonsOf(({ replicatedJobs }) => replicatedJobs.push({ template: {} }))).toEqual([`${HEAD}replicatedJobs[1] "": not the trainer job; ${because}`]);
  });

  it('a second job labelled trainer is refused', () => {
    expect(reasonsOf(({ replicatedJobs, trainer }) => replicatedJobs.push({ ...structuredClone(trainer), name: 'launcher' }))).toEqual([
      `${HEAD}replicatedJobs[1] "launcher": a second job labelled trainer; ${because}`,
    ]);
  });

  it('none labelled trainer is a reason, naming the jobs found', () => {
    expect(reasonsOf(({ trainer }) => delete (trainer.template as Obj).metadata)).toEqual([
      `${HEAD}spec.template.spec.replicatedJobs: none is labelled trainer.kubeflow.org/trainjob-ancestor-step: trainer (found replicatedJobs[0] "node")`,
    ]);
    expect(reasonsOf(({ jobSet }) => (jobSet.replicatedJobs = []))).toEqual([
      `${HEAD}spec.template.spec.replicatedJobs: none is labelled trainer.kubeflow.org/trainjob-ancestor-step: trainer (there are none)`,
    ]);
  });

  it('a trainer label with another value is not the trainer job', () => {
    const reasons = reasonsOf(({ trainer }) => (((trainer.template as Obj).metadata as Obj).labels = { 'trainer.kubeflow.org/trainjob-ancestor-step': 'Trainer' }));
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toContain('none is labelled');
  });
});

describe('docs/runtime-rules.md, rule: the trainer job\'s pod template states restartPolicy: Never', () => {
  it.each(['OnFailure', 'Always'])('restartPolicy %s is refused', (policy) => {
    expect(reasonsOf(({ pod }) => (pod.restartPolicy = policy))).toEqual([
      `${NODE}spec.template.spec.restartPolicy is ${policy}; must be Never (a kubelet restarting a container in place raises neither A nor J)`,
    ]);
  });

  it('an unstated restartPolicy is refused', () => {
    expect(reasonsOf(({ pod }) => delete pod.restartPolicy)).toEqual([
      `${NODE}spec.template.spec.restartPolicy is not stated; must be Never (a kubelet restarting a container in place raises neither A nor J)`,
    ]);
  });
});

describe('docs/runtime-rules.md, rule: the trainer job states backoffLimit: 0', () => {
  it('backoffLimit 3 is refused', () => {
    expect(reasonsOf(({ job }) => (job.backoffLimit = 3))).toEqual([
      `${NODE}spec.backoffLimit is 3; must be 0 (a failed rank's pod would be replaced within one execution)`,
    ]);
  });

  it('an unstated backoffLimit is refused, because Kubernetes defaults it to 6', () => {
    expect(reasonsOf(({ job }) => delete job.backoffLimit)).toEqual([
      `${NODE}spec.backoffLimit is not stated; must be 0 (Kubernetes defaults it to 6, and a failed rank's pod would be replaced within one execution)`,
    ]);
  });

  it('a backoffLimit that is not the number 0 is refused, quoted', () => {
    expect(reasonsOf(({ job }) => (job.backoffLimit = '0'))[0]).toContain('spec.backoffLimit is "0"; must be 0');
    expect(reasonsOf(({ job }) => (job.backoffLimit = [0]))[0]).toContain('spec.backoffLimit is [0]; must be 0');
  });
});

describe('docs/runtime-rules.md, rule: no podFailurePolicy rule with action Ignore, and no backoffLimitPerIndex (waived by allowRankRestart)', () => {
  const because = 'it lets the Job replace a failed pod without failing; allowRankRestart waives this';
  const ignoreRule = { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget' }] };
  const withIgnore = ({ job }: Parts) => (job.podFailurePolicy = { rules: [{ action: 'FailJob', onExitCodes: { operator: 'In', values: [42] } }, ignoreRule] });
  const withPerIndex = ({ job }: Parts) => {
    job.backoffLimitPerIndex = 1;
    job.completionMode = 'Indexed';
  };
  const withBoth = (parts: Parts) => {
    withIgnore(parts);
    withPerIndex(parts);
  };

  it('an Ignore rule is refused, by index', () => {
    expect(reasonsOf(withIgnore)).toEqual([`${NODE}spec.podFailurePolicy.rules[1].action is Ignore; ${because}`]);
  });

  it('a backoffLimitPerIndex is refused, whatever its value', () => {
    expect(reasonsOf(withPerIndex)).toEqual([`${NODE}spec.backoffLimitPerIndex is 1; ${because}`]);
    expect(reasonsOf(({ job }) => (job.backoffLimitPerIndex = 0))).toEqual([`${NODE}spec.backoffLimitPerIndex is 0; ${because}`]);
  });

  it('both are each a reason', () => {
    expect(reasonsOf(withBoth)).toEqual([
      `${NODE}spec.podFailurePolicy.rules[1].action is Ignore; ${because}`,
      `${NODE}spec.backoffLimitPerIndex is 1; ${because}`,
    ]);
  });

  const weakenedTail = 'so a failed rank can rerun under the same DISPATCH_ATTEMPT and one execution can contain a restarted rank';

  it('allowRankRestart waives an Ignore rule, and the IdentityWeakener names it', () => {
    const verdict = checkRuntime(example(withIgnore), REF, config({ allowRankRestart: true }));
    expect(verdict.reasons).toEqual([]);
    expect(verdict.weakened).toBe(`allowRankRestart: the runtime's trainer job states a podFailurePolicy Ignore rule, ${weakenedTail}`);
  });

  it('allowRankRestart waives two Ignore rules, named once', () => {
    const verdict = checkRuntime(example(({ job }) => (job.podFailurePolicy = { rules: [ignoreRule, ignoreRule] })), REF, config({ allowRankRestart: true }));
    expect(verdict.weakened).toBe(`allowRankRestart: the runtime's trainer job states a podFailurePolicy Ignore rule, ${weakenedTail}`);
  });

  it('allowRankRestart waives backoffLimitPerIndex, and the IdentityWeakener names it', () => {
    const verdict = checkRuntime(example(withPerIndex), REF, config({ allowRankRestart: true }));
    expect(verdict.reasons).toEqual([]);
    expect(verdict.weakened).toBe(`allowRankRestart: the runtime's trainer job states backoffLimitPerIndex, ${weakenedTail}`);
  });

  it('allowRankRestart waives both, and the IdentityWeakener text is exactly docs/runtime-rules.md\'s', () => {
    const verdict = checkRuntime(example(withBoth), REF, config({ allowRankRestart: true }));
    expect(verdict.reasons).toEqual([]);
    expect(verdict.weakened).toBe(
      "allowRankRestart: the runtime's trainer job states a podFailurePolicy Ignore rule and backoffLimitPerIndex, so a " +
        'failed rank can rerun under the same DISPATCH_ATTEMPT and one execution can contain a restarted rank',
    );
    expect(weakenedReason(['a podFailurePolicy Ignore rule', 'backoffLimitPerIndex'])).toBe(verdict.weakened);
  });

  it('allowRankRestart waives nothing else: other broken rules are still reasons, with the weakened text', () => {
    const verdict = checkRuntime(
      example((parts) => {
        withIgnore(parts);
        parts.job.backoffLimit = 2;
      }),
      REF,
      config({ allowRankRestart: true }),
    );
    expect(verdict.reasons).toEqual([`${NODE}spec.backoffLimit is 2; must be 0 (a failed rank's pod would be replaced within one execution)`]);
    expect(verdict.weakened).toContain('a podFailurePolicy Ignore rule');
  });

  it('without anything to waive, allowRankRestart weakens nothing', () => {
    expect(checkRuntime(dispatchKind(), REF, config({ allowRankRestart: true })).weakened).toBeUndefined();
  });
});

describe('docs/runtime-rules.md, rule: every podFailurePolicy rule has a known action (FailJob, FailIndex, Count or Ignore)', () => {
  const because = 'must be one of FailJob, FailIndex, Count, Ignore (an unknown action is meaning the adapter does not understand)';

  it('FailJob and Count rules are accepted (they only fail the Job sooner or count against backoffLimit: 0)', () => {
    expect(reasonsOf(({ job }) => (job.podFailurePolicy = { rules: [{ action: 'FailJob' }, { action: 'Count' }] }))).toEqual([]);
  });

  it('a FailIndex rule is a known action', () => {
    expect(reasonsOf(({ job }) => (job.podFailurePolicy = { rules: [{ action: 'FailIndex' }] }))).toEqual([]);
  });

  it('an unknown action is refused, by index', () => {
    expect(reasonsOf(({ job }) => (job.podFailurePolicy = { rules: [{ action: 'FailJob' }, { action: 'RestartPod' }] }))).toEqual([
      `${NODE}spec.podFailurePolicy.rules[1].action is RestartPod; ${because}`,
    ]);
  });

  it('a rule with no action, or one that is not an object, is refused', () => {
    expect(reasonsOf(({ job }) => (job.podFailurePolicy = { rules: [{}, 'Ignore'] }))).toEqual([
      `${NODE}spec.podFailurePolicy.rules[0].action is not stated; ${because}`,
      `${NODE}spec.podFailurePolicy.rules[1].action is not stated; ${because}`,
    ]);
  });
});

describe('docs/runtime-rules.md, rule: the trainer pod has a container named node', () => {
  it('a trainer pod without it is refused', () => {
    expect(reasonsOf(({ pod }) => ((pod.containers as Obj[])[0]!.name = 'trainer'))).toEqual([
      `${NODE}spec.template.spec.containers has no container named node (dispatch's runtime patch names it)`,
    ]);
    expect(reasonsOf(({ pod }) => delete pod.containers)).toHaveLength(1);
  });

  it('node among other containers is enough', () => {
    expect(reasonsOf(({ pod }) => (pod.containers as Obj[]).unshift({ name: 'sidecar', image: 'x' }))).toEqual([]);
  });

  it('an init container named node is not the container', () => {
    expect(reasonsOf(({ pod }) => (pod.initContainers = (pod.containers as Obj[]).splice(0)))).toHaveLength(1);
  });
});

describe('docs/runtime-rules.md, rule: under publish.via: initContainer, the trainer pod has an init container with the configured name', () => {
  const initContainer = config({ publish: { via: 'initContainer' } });
  const missing = (name: string) =>
    `${NODE}spec.template.spec.initContainers has no container named ${name}, which publish.via: initContainer needs ` +
    '(Trainer accepts a patch naming a missing container, and the job then holds quota with no pods)';

  it('the example, which has no init container, is refused under initContainer', () => {
    expect(checkRuntime(dispatchKind(), REF, initContainer).reasons).toEqual([missing('dispatch-publish')]);
  });

  it('an init container of the configured name passes; the name is configurable', () => {
    const withPublish = example(({ pod }) => (pod.initContainers = [{ name: 'dispatch-publish', image: 'x' }]));
    expect(checkRuntime(withPublish, REF, initContainer).reasons).toEqual([]);
    const custom = config({ publish: { via: 'initContainer', initContainer: 'publisher' } });
    expect(checkRuntime(withPublish, REF, custom).reasons).toEqual([missing('publisher')]);
  });

  it('a container (not init container) of that name does not count', () => {
    const runtime = example(({ pod }) => (pod.containers as Obj[]).push({ name: 'dispatch-publish', image: 'x' }));
    expect(checkRuntime(runtime, REF, initContainer).reasons).toEqual([missing('dispatch-publish')]);
  });

  it('under publish.via: env it is not required', () => {
    expect(checkRuntime(dispatchKind(), REF, config({ publish: { via: 'env' } })).reasons).toEqual([]);
  });
});

describe('docs/runtime-rules.md, rule: the JobSet failurePolicy, if there is one, has maxRestarts 0 (or unset) and every rule\'s action is FailJobSet', () => {
  const because = 'v1 restarts nothing natively; a restart the plan never chose is unplanned recovery';

  it('an absent failurePolicy is accepted (JobSet then fails on the first Job failure)', () => {
    expect(reasonsOf(({ jobSet }) => delete jobSet.failurePolicy)).toEqual([]);
  });

  it('maxRestarts 0, or unset, with FailJobSet rules is accepted', () => {
    expect(reasonsOf(({ jobSet }) => (jobSet.failurePolicy = { maxRestarts: 0, rules: [{ name: 'r', action: 'FailJobSet' }] }))).toEqual([]);
    expect(reasonsOf(({ jobSet }) => (jobSet.failurePolicy = { rules: [{ action: 'FailJobSet' }] }))).toEqual([]);
    expect(reasonsOf(({ jobSet }) => (jobSet.failurePolicy = {}))).toEqual([]);
  });

  it('maxRestarts above 0 is refused', () => {
    expect(reasonsOf(({ jobSet }) => (jobSet.failurePolicy = { maxRestarts: 3 }))).toEqual([
      `${HEAD}spec.template.spec.failurePolicy.maxRestarts is 3; must be 0 or unset (${because})`,
    ]);
  });

  it.each(['RestartJobSet', 'RestartJobSetAndIgnoreMaxRestarts', 'RestartJob', 'RestartJobAndIgnoreMaxRestarts'])('a rule with action %s is refused', (action) => {
    expect(reasonsOf(({ jobSet }) => (jobSet.failurePolicy = { maxRestarts: 0, rules: [{ action: 'FailJobSet' }, { action }] }))).toEqual([
      `${HEAD}spec.template.spec.failurePolicy.rules[1].action is ${action}; must be FailJobSet (${because})`,
    ]);
  });

  it('a rule with no action is refused', () => {
    expect(reasonsOf(({ jobSet }) => (jobSet.failurePolicy = { rules: [{ name: 'r' }] }))).toEqual([
      `${HEAD}spec.template.spec.failurePolicy.rules[0].action is not stated; must be FailJobSet (${because})`,
    ]);
  });
});

describe('docs/runtime-rules.md, "naming every reason it finds": a runtime that breaks many rules gets every reason', () => {
  it('all at once, in the order of the rules', () => {
    const runtime = example(({ mlPolicy, replicatedJobs, trainer, job, pod, jobSet }) => {
      mlPolicy.mpi = { numProcPerNode: 1 };
      replicatedJobs.push({ name: 'launcher', template: { spec: {} } });
      trainer.name = 'workers';
      pod.restartPolicy = 'OnFailure';
      job.backoffLimit = 4;
      job.backoffLimitPerIndex = 2;
      job.podFailurePolicy = { rules: [{ action: 'Ignore' }, { action: 'Retry' }] };
      (pod.containers as Obj[])[0]!.name = 'main';
      jobSet.failurePolicy = { maxRestarts: 5, rules: [{ action: 'RestartJobSet' }] };
    });
    const cfg = config({ runtimes: ['TrainingRuntime/only'], publish: { via: 'initContainer' } });
    const where = `${HEAD}replicatedJobs[0] "workers": `;
    expect(checkRuntime(runtime, REF, cfg)).toEqual({
      torch: false,
      runtime: 'ClusterTrainingRuntime/dispatch-kind',
      reasons: [
        `${HEAD}not in the configured runtimes (TrainingRuntime/only), the site's allow-list`,
        `${HEAD}spec.mlPolicy.mpi is set; mlPolicy may name nothing but torch besides numNodes (v1 runs plain and torch runtimes only)`,
        `${HEAD}replicatedJobs[1] "launcher": not the trainer job; the replicated jobs must be the trainer one and nothing else (initializers, MPI launchers and other steps were never exercised)`,
        `${where}spec.template.spec.restartPolicy is OnFailure; must be Never (a kubelet restarting a container in place raises neither A nor J)`,
        `${where}spec.backoffLimit is 4; must be 0 (a failed rank's pod would be replaced within one execution)`,
        `${where}spec.podFailurePolicy.rules[0].action is Ignore; it lets the Job replace a failed pod without failing; allowRankRestart waives this`,
        `${where}spec.backoffLimitPerIndex is 2; it lets the Job replace a failed pod without failing; allowRankRestart waives this`,
        `${where}spec.podFailurePolicy.rules[1].action is Retry; must be one of FailJob, FailIndex, Count, Ignore (an unknown action is meaning the adapter does not understand)`,
        `${where}spec.template.spec.containers has no container named node (dispatch's runtime patch names it)`,
        `${where}spec.template.spec.initContainers has no container named dispatch-publish, which publish.via: initContainer needs (Trainer accepts a patch naming a missing container, and the job then holds quota with no pods)`,
        `${HEAD}spec.template.spec.failurePolicy.maxRestarts is 5; must be 0 or unset (v1 restarts nothing natively; a restart the plan never chose is unplanned recovery)`,
        `${HEAD}spec.template.spec.failurePolicy.rules[0].action is RestartJobSet; must be FailJobSet (v1 restarts nothing natively; a restart the plan never chose is unplanned recovery)`,
      ],
    });
  });

  it('a runtime with no spec at all gets the reasons that can be named, and no crash', () => {
    expect(checkRuntime({ kind: 'ClusterTrainingRuntime' }, REF, config()).reasons).toEqual([
      `${HEAD}spec.template.spec.replicatedJobs: none is labelled trainer.kubeflow.org/trainjob-ancestor-step: trainer (there are none)`,
    ]);
  });

  it('a trainer job with no Job spec names every trainer-job rule', () => {
    const reasons = reasonsOf(({ trainer }) => (trainer.template = { metadata: { labels: { 'trainer.kubeflow.org/trainjob-ancestor-step': 'trainer' } } }));
    expect(reasons.map((r) => r.slice(NODE.length).split(' ')[0])).toEqual([
      'spec.template.spec.restartPolicy',
      'spec.backoffLimit',
      'spec.template.spec.containers',
    ]);
  });
});

describe('docs/start.md, JobSpec table, ProcsPerNode: a runtime without mlPolicy.torch, which would ignore it, is ErrUnsupported at Start', () => {
  const plain = checkRuntime(dispatchKind(), REF, config());
  const torch = checkRuntime(example(({ mlPolicy }) => (mlPolicy.torch = {})), REF, config());

  it('ProcsPerNode above 0 on a plain runtime is a reason naming the runtime', () => {
    expect(checkProcsPerNode(8, plain)).toEqual([
      'spec.procsPerNode is 8; ClusterTrainingRuntime/dispatch-kind has no mlPolicy.torch, which would ignore it',
    ]);
  });

  it('ProcsPerNode on a torch runtime is accepted', () => {
    expect(checkProcsPerNode(8, torch)).toEqual([]);
  });

  it.each([0, null, undefined])('ProcsPerNode %s (unset) is accepted on any runtime', (procs) => {
    expect(checkProcsPerNode(procs, plain)).toEqual([]);
  });

  it('a verdict built without the runtime still reads', () => {
    expect(checkProcsPerNode(2, { reasons: [], torch: false })).toEqual(['spec.procsPerNode is 2; the runtime has no mlPolicy.torch, which would ignore it']);
  });
});
