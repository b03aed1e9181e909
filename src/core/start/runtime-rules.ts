// The runtime rules (docs/runtime-rules.md, "The rules"): what a Trainer runtime must state so
// that nothing restarts a rank invisibly. Every broken rule is a reason, all at once; Start
// refuses at step 3 and Capabilities applies the same rules.
import type { Config } from '../../model/config.js';
import type { TrainerRuntime } from '../../model/kube.js';
import { LabelValues, Labels, Trainer } from '../../model/constants.js';
import { asArray, asObject, containerNames, hasTorchPolicy, isTrainerJob, jobSetSpec, jobSpec, mlPolicy, podSpec, replicatedJobs } from './runtime-shape.js';
import { type RuntimeName, runtimeKey } from '../objects/runtime-name.js';

/** Start refuses a runtime that breaks the rules at step 3. */
export const RULES_STEP = 3;

export interface RuntimeVerdict {
  /** Every broken rule, each naming the runtime and the field. Empty when the runtime passes. */
  reasons: string[];
  /** go/dispatch's IdentityWeakener reason, when allowRankRestart waived a rule. */
  weakened?: string;
  /** Whether the runtime has mlPolicy.torch, the only kind that honours numProcPerNode. */
  torch: boolean;
  /** "<Kind>/<name>" of the runtime checked, for the reasons that follow from the verdict. */
  runtime?: string;
}

type Obj = Record<string, unknown>;

/** The trainer replicated job, located: what the trainer-job rules read. */
interface TrainerJob {
  /** Its index in replicatedJobs. */
  index: number;
  /** `replicatedJobs[<i>] "<name>"`, the head of each of its reasons. */
  where: string;
  /** Its Job spec (template.spec). */
  spec: Obj;
  /** Its pod spec (template.spec.template.spec). */
  pod: Obj | undefined;
}

interface Check {
  runtime: TrainerRuntime;
  ref: RuntimeName;
  config: Config;
  trainer: TrainerJob | undefined;
  /** What allowRankRestart waived, in the IdentityWeakener's words. */
  waived: string[];
}

type Rule = (check: Check) => string[];

const KNOWN_POD_FAILURE_ACTIONS = ['FailJob', 'FailIndex', 'Count', 'Ignore'];
const JOBSET_FAIL = 'FailJobSet';
const ALLOWED_ML_POLICIES: ReadonlySet<string> = new Set(['numNodes', 'torch']);
const WAIVED_IGNORE_RULE = 'a podFailurePolicy Ignore rule';
const WAIVED_PER_INDEX = 'backoffLimitPerIndex';

/** Whether a value is stated: Kubernetes treats an explicit null as absent. */
const stated = (value: unknown): boolean => value !== undefined && value !== null;

/**
 * A field's value as a reason quotes it: a name field's string as it is (`is OnFailure`), anything
 * else as JSON, so that a count given as a string reads `is "0"`, not `is 0`.
 */
const show = (value: unknown, names = false): string => (names && typeof value === 'string' ? value : JSON.stringify(value));

/** "is 3" or "is not stated". */
const is = (value: unknown, names = false): string => (stated(value) ? `is ${show(value, names)}` : 'is not stated');

/** The runtime is in `runtimes`, when that list is set (docs/runtime-rules.md: the site's allow-list). */
export function isRuntimeAllowed(ref: RuntimeName, config: Config): boolean {
  return config.runtimes.length === 0 || config.runtimes.includes(runtimeKey(ref));
}

const allowListed: Rule = ({ ref, config }) =>
  isRuntimeAllowed(ref, config) ? [] : [`not in the configured runtimes (${config.runtimes.join(', ')}), the site's allow-list`];

const plainOrTorch: Rule = ({ runtime }) =>
  Object.entries(mlPolicy(runtime) ?? {})
    .filter(([key, value]) => !ALLOWED_ML_POLICIES.has(key) && stated(value))
    .map(([key]) => `spec.mlPolicy.${key} is set; mlPolicy may name nothing but torch besides numNodes (v1 runs plain and torch runtimes only)`);

const trainerOnly: Rule = ({ runtime, trainer }) => {
  const jobs = replicatedJobs(runtime);
  if (!trainer) {
    // Without the trainer job there is no telling which of the others should have been it.
    const found = jobs.length === 0 ? 'there are none' : `found ${jobs.map((job, i) => whereIs(job, i)).join(', ')}`;
    return [`spec.template.spec.replicatedJobs: none is labelled ${Labels.trainerAncestorStep}: ${LabelValues.trainerStep} (${found})`];
  }
  return jobs.flatMap((job, i) => {
    if (i === trainer.index) return [];
    const what = isTrainerJob(job) ? 'a second job labelled trainer' : 'not the trainer job';
    return [
      `${whereIs(job, i)}: ${what}; the replicated jobs must be the trainer one and nothing else ` +
        `(initializers, MPI launchers and other steps were never exercised)`,
    ];
  });
};

const restartNever: Rule = ({ trainer }) => {
  if (!trainer) return [];
  const policy = trainer.pod?.restartPolicy;
  return policy === 'Never'
    ? []
    : [`${trainer.where}: spec.template.spec.restartPolicy ${is(policy, true)}; must be Never (a kubelet restarting a container in place raises neither A nor J)`];
};

const noBackoff: Rule = ({ trainer }) => {
  if (!trainer) return [];
  const limit = trainer.spec.backoffLimit;
  if (limit === 0) return [];
  const because = stated(limit)
    ? "a failed rank's pod would be replaced within one execution"
    : "Kubernetes defaults it to 6, and a failed rank's pod would be replaced within one execution";
  return [`${trainer.where}: spec.backoffLimit ${is(limit)}; must be 0 (${because})`];
};

/** The trainer job's podFailurePolicy rules, each an object (a non-object has no action). */
const podFailureRules = (trainer: TrainerJob): Obj[] =>
  asArray(asObject(trainer.spec.podFailurePolicy)?.rules).map((rule) => asObject(rule) ?? {});

const noRankRestart: Rule = ({ trainer, config, waived }) => {
  if (!trainer) return [];
  const because = 'it lets the Job replace a failed pod without failing; allowRankRestart waives this';
  const reasons: string[] = [];
  const found: string[] = [];
  podFailureRules(trainer).forEach((rule, i) => {
    if (rule.action !== 'Ignore') return;
    reasons.push(`${trainer.where}: spec.podFailurePolicy.rules[${i}].action is Ignore; ${because}`);
    if (!found.includes(WAIVED_IGNORE_RULE)) found.push(WAIVED_IGNORE_RULE);
  });
  const perIndex = trainer.spec.backoffLimitPerIndex;
  if (stated(perIndex)) {
    reasons.push(`${trainer.where}: spec.backoffLimitPerIndex is ${show(perIndex)}; ${because}`);
    found.push(WAIVED_PER_INDEX);
  }
  if (!config.allowRankRestart) return reasons;
  waived.push(...found);
  return [];
};

const knownPodFailureActions: Rule = ({ trainer }) => {
  if (!trainer) return [];
  const reasons: string[] = [];
  podFailureRules(trainer).forEach((rule, i) => {
    if (typeof rule.action === 'string' && KNOWN_POD_FAILURE_ACTIONS.includes(rule.action)) return;
    reasons.push(
      `${trainer.where}: spec.podFailurePolicy.rules[${i}].action ${is(rule.action, true)}; must be one of ` +
        `${KNOWN_POD_FAILURE_ACTIONS.join(', ')} (an unknown action is meaning the adapter does not understand)`,
    );
  });
  return reasons;
};

const nodeContainer: Rule = ({ trainer }) => {
  if (!trainer || containerNames(trainer.pod, 'containers').includes(Trainer.nodeContainer)) return [];
  return [`${trainer.where}: spec.template.spec.containers has no container named ${Trainer.nodeContainer} (dispatch's runtime patch names it)`];
};

const publishInitContainer: Rule = ({ trainer, config }) => {
  const name = config.publish.initContainer;
  if (!trainer || config.publish.via !== 'initContainer' || containerNames(trainer.pod, 'initContainers').includes(name)) return [];
  return [
    `${trainer.where}: spec.template.spec.initContainers has no container named ${name}, which publish.via: initContainer needs ` +
      `(Trainer accepts a patch naming a missing container, and the job then holds quota with no pods)`,
  ];
};

const jobSetFailsOnce: Rule = ({ runtime }) => {
  const policy = asObject(jobSetSpec(runtime)?.failurePolicy);
  if (!policy) return [];
  const field = 'spec.template.spec.failurePolicy';
  const because = 'v1 restarts nothing natively; a restart the plan never chose is unplanned recovery';
  const reasons: string[] = [];
  if (stated(policy.maxRestarts) && policy.maxRestarts !== 0) {
    reasons.push(`${field}.maxRestarts is ${show(policy.maxRestarts)}; must be 0 or unset (${because})`);
  }
  asArray(policy.rules).forEach((rule, i) => {
    const action = asObject(rule)?.action;
    if (action !== JOBSET_FAIL) reasons.push(`${field}.rules[${i}].action ${is(action, true)}; must be ${JOBSET_FAIL} (${because})`);
  });
  return reasons;
};

/** The rules, in the order of docs/runtime-rules.md (rules 1 to 10). */
const RULES: readonly Rule[] = [
  allowListed,
  plainOrTorch,
  trainerOnly,
  restartNever,
  noBackoff,
  noRankRestart,
  knownPodFailureActions,
  nodeContainer,
  publishInitContainer,
  jobSetFailsOnce,
];

function whereIs(job: Obj, index: number): string {
  return `replicatedJobs[${index}] ${JSON.stringify(typeof job.name === 'string' ? job.name : '')}`;
}

function locateTrainer(runtime: TrainerRuntime): TrainerJob | undefined {
  const jobs = replicatedJobs(runtime);
  const index = jobs.findIndex(isTrainerJob);
  const job = jobs[index];
  if (!job) return undefined;
  return { index, where: whereIs(job, index), spec: jobSpec(job) ?? {}, pod: podSpec(job) };
}

/**
 * go/dispatch's IdentityWeakener answer for what allowRankRestart waived (docs/runtime-rules.md,
 * "allowRankRestart").
 */
export function weakenedReason(waived: readonly string[]): string {
  return (
    `allowRankRestart: the runtime's trainer job states ${waived.join(' and ')}, so a failed rank can ` +
    'rerun under the same DISPATCH_ATTEMPT and one execution can contain a restarted rank'
  );
}

/** Checks a runtime against every rule of docs/runtime-rules.md; `ref` is the runtime the job named. */
export function checkRuntime(runtime: TrainerRuntime, ref: RuntimeName, config: Config): RuntimeVerdict {
  const key = runtimeKey(ref);
  const check: Check = { runtime, ref, config, trainer: locateTrainer(runtime), waived: [] };
  const reasons = RULES.flatMap((rule) => rule(check)).map((reason) => `${key}: ${reason}`);
  return {
    reasons,
    torch: hasTorchPolicy(runtime),
    runtime: key,
    ...(check.waived.length > 0 ? { weakened: weakenedReason(check.waived) } : {}),
  };
}

/**
 * Start's ProcsPerNode check (docs/start.md, JobSpec table): a runtime without mlPolicy.torch would
 * ignore numProcPerNode, so asking for it is refused (ErrUnsupported, step 4). Capabilities never
 * refuses it; it answers the capability no.
 */
export function checkProcsPerNode(procsPerNode: number | null | undefined, verdict: RuntimeVerdict): string[] {
  if (!procsPerNode || procsPerNode <= 0 || verdict.torch) return [];
  const runtime = verdict.runtime ?? 'the runtime';
  return [`spec.procsPerNode is ${procsPerNode}; ${runtime} has no mlPolicy.torch, which would ignore it`];
}
