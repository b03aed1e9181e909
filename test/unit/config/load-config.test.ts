// Reading the configuration file (docs/contract.md §5): YAML or JSON, the contract's defaults, and every
// error named in one ConfigError. The schema's own field rules are in test/unit/model/config.test.ts;
// these tests are about the file and what a caller of loadConfig/parseConfig receives.
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseConfig, readDocument } from '../../../src/config/load-config.js';
import type { Config } from '../../../src/model/config.js';

const EXAMPLE_FILE = fileURLToPath(
  new URL('../../fixtures/config/contract-example.yaml', import.meta.url),
);

/** docs/contract.md §5's example file, with every default it states. */
const EXAMPLE_DEFAULTS: Config = {
  namespace: 'ml-jobs',
  runtimes: [],
  mode: 'plain',
  kueue: {
    queue: 'user-queue',
    admissionCheck: 'dispatch',
    gate: 'dispatch.phpboyscout.uk/start',
    workloadVersion: 'v1beta2',
  },
  timeouts: { workload: '60s', call: '30s', watchRecheck: '15m', runtimeLag: '5m' },
  gpuResource: 'nvidia.com/gpu',
  allowRankRestart: false,
  publish: { via: 'env', initContainer: 'dispatch-publish' },
  probeRuntime: 'ClusterTrainingRuntime/dispatch-probe',
  temporal: { taskQueue: 'dispatch-kubeflow' },
  kubeconfig: '',
};

let dir: string;
const file = (name: string) => path.join(dir, name);

async function write(name: string, text: string): Promise<string> {
  await writeFile(file(name), text);
  return file(name);
}

/** The ConfigError a configuration is refused with (the test fails when it is accepted). */
async function configError(load: () => Promise<Config> | Config): Promise<ConfigError> {
  try {
    await load();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('accepted');
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'load-config-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('loadConfig: YAML or JSON', () => {
  it("reads docs/contract.md §5's example YAML file, comments and all, as written", async () => {
    expect(await loadConfig(EXAMPLE_FILE)).toEqual(EXAMPLE_DEFAULTS);
  });

  it('reads the same configuration from a JSON file', async () => {
    expect(await loadConfig(await write('config.json', JSON.stringify(EXAMPLE_DEFAULTS, null, 2)))).toEqual(
      EXAMPLE_DEFAULTS,
    );
  });

  it('a .json file holding YAML, or a .yaml file holding JSON, is read by its content, not its name', async () => {
    expect((await loadConfig(await write('yaml.json', 'namespace: a\n'))).namespace).toBe('a');
    expect((await loadConfig(await write('json.yaml', '{"namespace": "b"}'))).namespace).toBe('b');
  });
});

describe('docs/contract.md §5: defaults', () => {
  it('a file with only the namespace gets every default the contract states (kueue queue and check have none)', async () => {
    expect(await loadConfig(await write('minimal.yaml', 'namespace: ml-jobs\n'))).toEqual({
      ...EXAMPLE_DEFAULTS,
      kueue: { ...EXAMPLE_DEFAULTS.kueue, queue: '', admissionCheck: '' },
    });
  });

  it('a section given in part keeps the defaults of the rest', async () => {
    const config = await loadConfig(
      await write('partial.yaml', 'namespace: a\ntimeouts:\n  call: 5s\npublish:\n  via: initContainer\n'),
    );
    expect([config.timeouts, config.publish]).toEqual([
      { workload: '60s', call: '5s', watchRecheck: '15m', runtimeLag: '5m' },
      { via: 'initContainer', initContainer: 'dispatch-publish' },
    ]);
  });

  it('empty YAML keys are null: runtimes becomes the empty list', async () => {
    expect((await loadConfig(await write('empty-key.yaml', 'namespace: a\nruntimes:\n'))).runtimes).toEqual(
      [],
    );
  });

  it('parseConfig applies the same defaults to a value already read', () => {
    expect(
      parseConfig({ namespace: 'ml-jobs', kueue: { queue: 'user-queue', admissionCheck: 'dispatch' } }),
    ).toEqual(EXAMPLE_DEFAULTS);
  });
});

describe('docs/contract.md §5: every error named', () => {
  it('every wrong field at once, each by its path, in the ConfigError and its message', async () => {
    const text = [
      'namespace: ML_Jobs',
      'runtimes: [Pod/x, ClusterTrainingRuntime/ok]',
      'mode: kueue',
      'kueue: {gate: "not a gate", workloadVersion: v1}',
      'timeouts: {workload: "60", call: 0s}',
      'gpuResource: nvidia gpu',
      'allowRankRestart: "true"',
      'publish: {via: file, initContainer: Publish_Me}',
      'probeRuntime: dispatch-probe',
      'temporal: {taskQueue: ""}',
      'kubeconfig: 1',
      'namespaces: [b]',
    ].join('\n');
    const error = await configError(async () => loadConfig(await write('every-error.yaml', text)));
    const reasons = [
      'namespace: not a valid namespace name (DNS-1123 label)',
      'runtimes[0]: must be "TrainingRuntime/<name>" or "ClusterTrainingRuntime/<name>"',
      'kueue.gate: not a valid annotation value for a gate',
      'kueue.workloadVersion: must be one of "v1beta1", "v1beta2"',
      'timeouts.workload: not a Go duration (e.g. "30s", "1m30s")',
      'timeouts.call: must be above 0',
      'gpuResource: not a valid resource name',
      'allowRankRestart: must be a boolean, not a string',
      'publish.via: must be one of "env", "initContainer"',
      'publish.initContainer: not a valid container name',
      'probeRuntime: must be "TrainingRuntime/<name>" or "ClusterTrainingRuntime/<name>"',
      'temporal.taskQueue: must not be empty',
      'kubeconfig: must be a string, not a number',
      'namespaces: unknown field',
      'kueue.queue: required in kueue mode',
      'kueue.admissionCheck: required in kueue mode',
    ];
    expect(error.reasons).toEqual(reasons);
    expect(error.file).toBe(file('every-error.yaml'));
    expect(error.message).toBe(
      `configuration ${file('every-error.yaml')} is not valid: ${reasons.join('; ')}`,
    );
    expect(error.name).toBe('ConfigError');
  });

  it('YAML 1.2 words: yes is a string, not a boolean; an unquoted number is not a duration', async () => {
    const error = await configError(async () =>
      loadConfig(await write('yaml12.yaml', 'namespace: a\nallowRankRestart: yes\ntimeouts: {call: 30}\n')),
    );
    expect(error.reasons).toEqual([
      'timeouts.call: must be a string, not a number',
      'allowRankRestart: must be a boolean, not a string',
    ]);
  });

  it('an empty file, or one without namespace, is refused for the namespace', async () => {
    expect((await configError(async () => loadConfig(await write('empty.yaml', '')))).reasons).toEqual([
      'namespace: is required',
    ]);
    expect(
      (await configError(async () => loadConfig(await write('no-ns.yaml', 'mode: plain\n')))).reasons,
    ).toEqual(['namespace: is required']);
  });

  it('a file that holds no mapping is refused as a whole', async () => {
    const error = await configError(async () => loadConfig(await write('list.yaml', '- namespace: a\n')));
    expect(error.reasons).toEqual(['must be an object, not an array']);
  });

  it('parseConfig names "(inline)" when given no file', async () => {
    const error = await configError(() => parseConfig({ namespace: 'a', mode: 'slurm' }));
    expect(error.message).toBe('configuration (inline) is not valid: mode: must be one of "plain", "kueue"');
  });
});

describe('readDocument: a file that cannot be read or parsed is a one-line error naming it', () => {
  it('a missing file, and a folder', async () => {
    await expect(readDocument(file('missing.yaml'))).rejects.toThrow(
      new Error(`cannot read ${file('missing.yaml')}: ENOENT`),
    );
    await mkdir(file('folder'));
    await expect(readDocument(file('folder'))).rejects.toThrow(
      new Error(`cannot read ${file('folder')}: EISDIR`),
    );
  });

  it.each([
    [
      'a YAML syntax error',
      'namespace: [a\n',
      'Flow sequence in block collection must be sufficiently indented and end with a ] at line 2, column 1',
    ],
    ['a repeated key', 'namespace: a\nnamespace: b\n', 'Map keys must be unique at line 2, column 1'],
    ['a JSON syntax error', '{"namespace": "a",,}', 'Unexpected , in flow map at line 1, column 19'],
    [
      'tabs as indentation',
      'timeouts:\n\tcall: 5s\n',
      'Tabs are not allowed as indentation at line 2, column 1',
    ],
    [
      'a second document',
      'namespace: a\n---\nnamespace: b\n',
      'it holds more than one document (one object per file) at line 2, column 1',
    ],
  ])('%s: the problem and where, without the source excerpt', async (_, text, problem) => {
    const name = await write('syntax.yaml', text);
    await expect(readDocument(name)).rejects.toThrow(
      new Error(`${name} is not valid YAML or JSON: ${problem}`),
    );
  });

  it('loadConfig reports the syntax error, not a configuration error', async () => {
    await expect(loadConfig(await write('broken.yaml', 'namespace: [a\n'))).rejects.not.toBeInstanceOf(
      ConfigError,
    );
  });
});
