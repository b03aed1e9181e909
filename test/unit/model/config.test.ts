import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ConfigSchema } from '../../../src/model/config.js';
import { issuesToReasons } from '../../../src/model/issues.js';

/** Every reason a configuration is refused with (empty when it is accepted). */
function reasons(input: unknown): string[] {
  const parsed = ConfigSchema.safeParse(input, { reportInput: true });
  return parsed.success ? [] : issuesToReasons(parsed.error.issues);
}

/** The example configuration of docs/contract.md §5, as the fixture holds it: every default, and a kueue queue and check. */
const contractExample = (): unknown =>
  parse(readFileSync(new URL('../../fixtures/config/contract-example.yaml', import.meta.url), 'utf8'));

describe('docs/contract.md §5: configuration defaults', () => {
  it('the contract\'s example file is valid and kept as written', () => {
    expect(ConfigSchema.parse(contractExample())).toEqual(contractExample());
  });

  it('only namespace is required; every other field has the default the contract\'s example states', () => {
    const example = ConfigSchema.parse(contractExample());
    // queue and admissionCheck have no default: the example sets them for kueue mode.
    expect(ConfigSchema.parse({ namespace: 'ml-jobs' })).toEqual({ ...example, kueue: { ...example.kueue, queue: '', admissionCheck: '' } });
  });

  it('the defaults, spelled out', () => {
    const config = ConfigSchema.parse({ namespace: 'ml-jobs' });
    expect([config.mode, config.gpuResource, config.allowRankRestart, config.probeRuntime, config.kubeconfig]).toEqual([
      'plain',
      'nvidia.com/gpu',
      false,
      'ClusterTrainingRuntime/dispatch-probe',
      '',
    ]);
    expect([config.timeouts, config.publish, config.temporal.taskQueue, config.kueue.gate]).toEqual([
      { workload: '60s', call: '30s', watchRecheck: '15m', runtimeLag: '5m' },
      { via: 'env', initContainer: 'dispatch-publish' },
      'dispatch-kubeflow',
      'dispatch.phpboyscout.uk/start',
    ]);
  });

  it('a partial section keeps the defaults of the fields it leaves out', () => {
    const config = ConfigSchema.parse({
      namespace: 'ml-jobs',
      timeouts: { call: '5s' },
      publish: { via: 'initContainer' },
      kueue: { workloadVersion: 'v1beta1' },
    });
    expect(config.timeouts).toEqual({ workload: '60s', call: '5s', watchRecheck: '15m', runtimeLag: '5m' });
    expect(config.publish).toEqual({ via: 'initContainer', initContainer: 'dispatch-publish' });
    expect(config.kueue.gate).toBe('dispatch.phpboyscout.uk/start');
  });

  it('runtimes: null (an empty YAML key) is the empty list', () => {
    expect(ConfigSchema.parse(parse('namespace: a\nruntimes:\n')).runtimes).toEqual([]);
  });

  it('a full configuration is kept as written', () => {
    const input = {
      namespace: 'team-a',
      runtimes: ['ClusterTrainingRuntime/torch-distributed', 'TrainingRuntime/team.plain'],
      mode: 'kueue',
      kueue: { queue: 'team-a-queue', admissionCheck: 'dispatch', gate: 'example.com/gate', workloadVersion: 'v1beta1' },
      timeouts: { workload: '2m', call: '1m30s', watchRecheck: '5m', runtimeLag: '10m' },
      gpuResource: 'amd.com/gpu',
      allowRankRestart: true,
      publish: { via: 'initContainer', initContainer: 'publisher' },
      probeRuntime: 'TrainingRuntime/probe',
      temporal: { taskQueue: 'q' },
      kubeconfig: '/etc/kube/config',
    };
    expect(ConfigSchema.parse(input)).toEqual(input);
  });
});

describe('docs/contract.md §5: every error named', () => {
  it('namespace is required, and must be a DNS-1123 label of at most 63 characters', () => {
    expect(reasons({})).toEqual(['namespace: is required']);
    expect(reasons({ namespace: 5 })).toEqual(['namespace: must be a string, not a number']);
    expect(reasons({ namespace: 'ML_Jobs' })).toEqual(['namespace: not a valid namespace name (DNS-1123 label)']);
    expect(reasons({ namespace: 'a'.repeat(64) })).toEqual(['namespace: longer than 63 characters']);
    expect(reasons({ namespace: 'a'.repeat(63) })).toEqual([]);
  });

  it('runtimes entries must be "<Kind>/<name>" of a Trainer runtime kind, named by index', () => {
    expect(reasons({ namespace: 'a', runtimes: ['ClusterTrainingRuntime/ok', 'Pod/x', 'TrainingRuntime/', 'TrainingRuntime/a/b', 'TrainingRuntime/Bad_Name'] })).toEqual([
      'runtimes[1]: must be "TrainingRuntime/<name>" or "ClusterTrainingRuntime/<name>"',
      'runtimes[2]: must be "TrainingRuntime/<name>" or "ClusterTrainingRuntime/<name>"',
      'runtimes[3]: must be "TrainingRuntime/<name>" or "ClusterTrainingRuntime/<name>"',
      'runtimes[4]: must be "TrainingRuntime/<name>" or "ClusterTrainingRuntime/<name>"',
    ]);
  });

  it('mode is plain or kueue', () => {
    expect(reasons({ namespace: 'a', mode: 'slurm' })).toEqual(['mode: must be one of "plain", "kueue"']);
  });

  it('kueue mode requires kueue.queue and kueue.admissionCheck, each named', () => {
    expect(reasons({ namespace: 'a', mode: 'kueue' })).toEqual(['kueue.queue: required in kueue mode', 'kueue.admissionCheck: required in kueue mode']);
    expect(reasons({ namespace: 'a', mode: 'kueue', kueue: { queue: 'q' } })).toEqual(['kueue.admissionCheck: required in kueue mode']);
    expect(reasons({ namespace: 'a', mode: 'kueue', kueue: { admissionCheck: 'c', queue: '' } })).toEqual(['kueue.queue: required in kueue mode']);
    expect(reasons({ namespace: 'a', mode: 'kueue', kueue: { queue: 'q', admissionCheck: 'c' } })).toEqual([]);
  });

  it('plain mode requires neither', () => {
    expect(reasons({ namespace: 'a', mode: 'plain', kueue: { queue: '' } })).toEqual([]);
  });

  it('the kueue requirement is named even when another field is wrong', () => {
    expect(reasons({ mode: 'kueue', timeouts: { call: 'soon' } })).toEqual([
      'namespace: is required',
      'timeouts.call: not a Go duration (e.g. "30s", "1m30s")',
      'kueue.queue: required in kueue mode',
      'kueue.admissionCheck: required in kueue mode',
    ]);
  });

  const DURATION = 'not a Go duration (e.g. "30s", "1m30s")';
  const RUNTIME = 'must be "TrainingRuntime/<name>" or "ClusterTrainingRuntime/<name>"';
  it.each([
    ['kueue.gate must be a qualified name', { kueue: { gate: 'not a gate' } }, ['kueue.gate: not a valid annotation value for a gate']],
    ['kueue.workloadVersion is v1beta1 or v1beta2', { kueue: { workloadVersion: 'v1' } }, ['kueue.workloadVersion: must be one of "v1beta1", "v1beta2"']],
    ['timeouts are Go durations', { timeouts: { workload: '60', call: '1 m' } }, [`timeouts.workload: ${DURATION}`, `timeouts.call: ${DURATION}`]],
    ['timeouts are above 0', { timeouts: { workload: '-1m', call: '0s' } }, ['timeouts.workload: must be above 0', 'timeouts.call: must be above 0']],
    ['gpuResource must be a resource name', { gpuResource: 'nvidia gpu' }, ['gpuResource: not a valid resource name']],
    ['allowRankRestart is a boolean', { allowRankRestart: 'yes' }, ['allowRankRestart: must be a boolean, not a string']],
    ['publish.via is env or initContainer', { publish: { via: 'file' } }, ['publish.via: must be one of "env", "initContainer"']],
    ['publish.initContainer is a container name', { publish: { initContainer: 'Publish_Me' } }, ['publish.initContainer: not a valid container name']],
    ['probeRuntime must be "<Kind>/<name>"', { probeRuntime: 'dispatch-probe' }, [`probeRuntime: ${RUNTIME}`]],
    ['temporal.taskQueue must not be empty', { temporal: { taskQueue: '' } }, ['temporal.taskQueue: must not be empty']],
    ['kubeconfig is a string', { kubeconfig: 1 }, ['kubeconfig: must be a string, not a number']],
  ] as [string, object, string[]][])('%s', (_, fields, expected) => {
    expect(reasons({ namespace: 'a', ...fields })).toEqual(expected);
  });

  it('an unknown key at any level is named by its path', () => {
    expect(
      reasons({ namespace: 'a', namespaces: ['b'], kueue: { queues: 'q' }, timeouts: { start: '1s' }, publish: { to: 'x' }, temporal: { address: 'x' } }),
    ).toEqual([
      'kueue.queues: unknown field',
      'timeouts.start: unknown field',
      'publish.to: unknown field',
      'temporal.address: unknown field',
      'namespaces: unknown field',
    ]);
  });

  it('every error at once', () => {
    expect(reasons({ namespace: '', mode: 'x', gpuResource: '', allowRankRestart: 1, probeRuntime: '' })).toHaveLength(5);
  });

  it('a configuration that is not a mapping is refused, not crashed on', () => {
    expect(reasons(null)).toEqual(['must be an object, not null']);
    expect(reasons('namespace: a')).toEqual(['must be an object, not a string']);
  });
});
