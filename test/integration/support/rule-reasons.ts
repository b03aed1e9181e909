// Seed 001's rules as the product words its reasons, and runtime edits that break them, shared by
// the tests that drive Start and Capabilities over the same runtimes. The wording is written out
// here, not imported from the product, so that a change to it shows up as a failing test.
import type { Json, RuntimeEdit } from './runtimes.js';

/** The reasons of the runtime rules (docs/runtime-rules.md), as the product words them, for a runtime `key`. */
export const rule = {
  mlPolicy: (key: string, policy: string) =>
    `${key}: spec.mlPolicy.${policy} is set; mlPolicy may name nothing but torch besides numNodes (v1 runs plain and torch runtimes only)`,
  extraJob: (key: string, index: number, name: string) =>
    `${key}: replicatedJobs[${index}] "${name}": not the trainer job; the replicated jobs must be the trainer one and nothing else ` +
    '(initializers, MPI launchers and other steps were never exercised)',
  noTrainer: (key: string, found: string) =>
    `${key}: spec.template.spec.replicatedJobs: none is labelled trainer.kubeflow.org/trainjob-ancestor-step: trainer (found ${found})`,
  restartPolicy: (key: string, is: string) =>
    `${key}: replicatedJobs[0] "node": spec.template.spec.restartPolicy ${is}; must be Never (a kubelet restarting a container in place raises neither A nor J)`,
  backoff: (key: string, limit: number) =>
    `${key}: replicatedJobs[0] "node": spec.backoffLimit is ${limit}; must be 0 (a failed rank's pod would be replaced within one execution)`,
  backoffUnstated: (key: string) =>
    `${key}: replicatedJobs[0] "node": spec.backoffLimit is not stated; must be 0 ` +
    "(Kubernetes defaults it to 6, and a failed rank's pod would be replaced within one execution)",
  ignore: (key: string, index: number) =>
    `${key}: replicatedJobs[0] "node": spec.podFailurePolicy.rules[${index}].action is Ignore; ` +
    'it lets the Job replace a failed pod without failing; allowRankRestart waives this',
  perIndex: (key: string, limit: number) =>
    `${key}: replicatedJobs[0] "node": spec.backoffLimitPerIndex is ${limit}; ` +
    'it lets the Job replace a failed pod without failing; allowRankRestart waives this',
  unknownAction: (key: string, index: number, action: string) =>
    `${key}: replicatedJobs[0] "node": spec.podFailurePolicy.rules[${index}].action is ${action}; must be one of ` +
    'FailJob, FailIndex, Count, Ignore (an unknown action is meaning the adapter does not understand)',
  nodeContainer: (key: string) =>
    `${key}: replicatedJobs[0] "node": spec.template.spec.containers has no container named node (dispatch's runtime patch names it)`,
  initContainer: (key: string, name: string) =>
    `${key}: replicatedJobs[0] "node": spec.template.spec.initContainers has no container named ${name}, which publish.via: initContainer needs ` +
    '(Trainer accepts a patch naming a missing container, and the job then holds quota with no pods)',
  maxRestarts: (key: string, n: number) =>
    `${key}: spec.template.spec.failurePolicy.maxRestarts is ${n}; must be 0 or unset ` +
    '(v1 restarts nothing natively; a restart the plan never chose is unplanned recovery)',
  jobSetAction: (key: string, index: number, action: string) =>
    `${key}: spec.template.spec.failurePolicy.rules[${index}].action is ${action}; must be FailJobSet ` +
    '(v1 restarts nothing natively; a restart the plan never chose is unplanned recovery)',
};

export const ignoreRule = { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] };
export const exitCodeRule = (action: string) => ({ action, onExitCodes: { containerName: 'node', operator: 'In', values: [42] } });
// The CRD requires a JobSet failure rule's name.
export const jobSetRule = (name: string, action: string) => ({ name, action });
export const extraJob = (name: string): Json => ({
  name,
  template: { spec: { backoffLimit: 0, template: { spec: { restartPolicy: 'Never', containers: [{ name, image: 'busybox' }] } } } },
});

/** Breaks every rule a runtime can break under the default configuration, each once. */
export const breakEveryRule: RuntimeEdit = ({ spec, jobSet, job, pod }) => {
  spec.mlPolicy.jax = {};
  jobSet.replicatedJobs.push(extraJob('initializer'));
  jobSet.failurePolicy = { maxRestarts: 2, rules: [jobSetRule('fail', 'FailJobSet'), jobSetRule('restart', 'RestartJobSet')] };
  delete job.backoffLimit;
  job.completionMode = 'Indexed';
  job.backoffLimitPerIndex = 1;
  job.podFailurePolicy = { rules: [exitCodeRule('FailJob'), ignoreRule, exitCodeRule('RestartPod')] };
  pod.restartPolicy = 'Always';
  pod.containers[0].name = 'trainer';
};

/** What breakEveryRule yields for runtime `key`: every reason, in the order of the rules. */
export const everyRuleReasons = (key: string): string[] => [
  rule.mlPolicy(key, 'jax'),
  rule.extraJob(key, 1, 'initializer'),
  rule.restartPolicy(key, 'is Always'),
  rule.backoffUnstated(key),
  rule.ignore(key, 1),
  rule.perIndex(key, 1),
  rule.unknownAction(key, 2, 'RestartPod'),
  rule.nodeContainer(key),
  rule.maxRestarts(key, 2),
  rule.jobSetAction(key, 1, 'RestartJobSet'),
];

/** An Ignore rule alone: what allowRankRestart waives. */
export const bendRankRestart: RuntimeEdit = ({ job }) => {
  job.podFailurePolicy = { rules: [ignoreRule] };
};

/** go/dispatch's IdentityWeakener answer (docs/runtime-rules.md, "allowRankRestart") for what was found. */
export const weakened = (states: string) =>
  `allowRankRestart: the runtime's trainer job states ${states}, so a failed rank can rerun under the same ` +
  'DISPATCH_ATTEMPT and one execution can contain a restarted rank';
