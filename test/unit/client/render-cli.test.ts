// The offline render contract, against the real command: `node bin/dispatch-kubeflow.js render
// --config FILE --request FILE --runtime FILE [--output yaml|json]`, with files in a temporary
// folder and no cluster. Each spawn costs about a second, so each one checks a whole case; the
// formatting is tested in-process in render-command.test.ts.
// (When dist/ exists the bin runs the compiled CLI: rebuild before trusting these tests then.)
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments, stringify } from 'yaml';
import type { RuntimeRefExtension } from '../../../src/model/request.js';
import { GOLDEN_DIR, exampleRequest } from '../../golden/cases.js';
import { dispatchKind, dispatchKindWith } from '../../fixtures/runtimes/load.js';
import { runCli, type CliRun } from '../../support/cli-process.js';

const KIND: RuntimeRefExtension = { kind: 'ClusterTrainingRuntime', name: 'dispatch-kind' };

type Run = CliRun;

let dir: string;

/** Runs `dispatch-kubeflow render` with files of the temporary folder named by their base name. */
function render(
  files: { config: string; request: string; runtime: string },
  output?: 'yaml' | 'json',
): Promise<Run> {
  const at = (name: string) => path.join(dir, name);
  const args = [
    'render',
    '--config',
    at(files.config),
    '--request',
    at(files.request),
    '--runtime',
    at(files.runtime),
  ];
  if (output) args.push('--output', output);
  return runCli(args);
}

const WEAKENED =
  "allowRankRestart: the runtime's trainer job states a podFailurePolicy Ignore rule, so a failed rank can rerun under " +
  'the same DISPATCH_ATTEMPT and one execution can contain a restarted rank';

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'render-cli-'));
  const files: Record<string, string> = {
    // Configurations, requests and runtimes each in both formats: the command reads YAML or JSON.
    'plain.yaml': 'namespace: ml-jobs\n',
    'waiver.json': JSON.stringify({ namespace: 'ml-jobs', allowRankRestart: true }),
    'allow-cluster.yaml': 'namespace: ml-jobs\nruntimes: [ClusterTrainingRuntime/dispatch-kind]\n',
    'invalid-config.yaml': 'namespace: ML_Jobs\nmode: kueue\ntimeouts: {call: soon}\nextra: 1\n',
    'request.json': JSON.stringify(exampleRequest(KIND)),
    'request.yaml': stringify(exampleRequest(KIND)),
    'invalid-request.json': JSON.stringify({
      ...exampleRequest(KIND),
      job: 'not-a-ulid',
      generation: -1,
      spec: { ...exampleRequest(KIND).spec, command: [], extensions: { 'kubeflow/RuntimeRef': KIND } },
    }),
    'bad.yaml': 'job: [unclosed\nspec: {}\n',
    'dispatch-kind.yaml': stringify(dispatchKind()),
    'namespaced.yaml': stringify({ ...dispatchKind(), kind: 'TrainingRuntime' }),
    'ignore-rule.json': JSON.stringify(
      dispatchKindWith(
        ({ job }) =>
          (job.podFailurePolicy = {
            rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget' }] }],
          }),
      ),
    ),
    'broken.yaml': stringify(
      dispatchKindWith(({ mlPolicy, pod, job }) => {
        mlPolicy.mpi = { numProcPerNode: 1 };
        pod.restartPolicy = 'OnFailure';
        job.backoffLimit = 3;
      }),
    ),
    'pod.yaml': 'apiVersion: v1\nkind: Pod\nmetadata: {name: dispatch-kind}\n',
  };
  await Promise.all(Object.entries(files).map(([name, text]) => writeFile(path.join(dir, name), text)));
});

afterAll(() => rm(dir, { recursive: true, force: true }));

describe.concurrent('render: success, exit 0', () => {
  it('yaml: two documents, the runtime copy and the TrainJob, exactly the golden file of the case', async () => {
    const run = await render({
      config: 'plain.yaml',
      request: 'request.json',
      runtime: 'dispatch-kind.yaml',
    });
    expect([run.code, run.stderr]).toEqual([0, '']);
    const docs = parseAllDocuments(run.stdout);
    expect(docs.map((d) => [d.errors.length, (d.toJS() as { kind: string }).kind])).toEqual([
      [0, 'TrainingRuntime'],
      [0, 'TrainJob'],
    ]);
    // test/golden/plain.yaml renders the same request, runtime and configuration.
    const golden = await readFile(path.join(GOLDEN_DIR, 'plain.yaml'), 'utf8');
    expect(`---\n${run.stdout}`).toBe(golden.slice(golden.indexOf('---\n')));
  });

  it('json: {runtimeCopy, trainJob} and no weakened when no waiver applied', async () => {
    const run = await render(
      { config: 'plain.yaml', request: 'request.yaml', runtime: 'dispatch-kind.yaml' },
      'json',
    );
    expect([run.code, run.stderr]).toEqual([0, '']);
    const body = JSON.parse(run.stdout) as Record<string, { kind: string }>;
    expect(Object.keys(body)).toEqual(['runtimeCopy', 'trainJob']);
    expect([body.runtimeCopy!.kind, body.trainJob!.kind]).toEqual(['TrainingRuntime', 'TrainJob']);
  });

  it('docs/runtime-rules.md, allowRankRestart: json carries weakened when the waiver applied (allowRankRestart true, an Ignore rule)', async () => {
    const run = await render(
      { config: 'waiver.json', request: 'request.yaml', runtime: 'ignore-rule.json' },
      'json',
    );
    expect([run.code, run.stderr]).toEqual([0, '']);
    const body = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(['runtimeCopy', 'trainJob', 'weakened']);
    expect(body.weakened).toBe(WEAKENED);
  });
});

describe.concurrent('render: refusal, exit 2', () => {
  it('json: ErrInvalid naming several reasons at once, on stdout', async () => {
    const run = await render(
      { config: 'plain.yaml', request: 'invalid-request.json', runtime: 'dispatch-kind.yaml' },
      'json',
    );
    expect([run.code, run.stderr]).toEqual([2, '']);
    const { error } = JSON.parse(run.stdout) as {
      error: { type: string; message: string; reasons: string[] };
    };
    expect(Object.keys(error)).toEqual(['type', 'message', 'reasons']);
    expect(error.type).toBe('ErrInvalid');
    expect(error.reasons.map((r) => r.slice(0, r.indexOf(': ')))).toEqual([
      'job',
      'generation',
      'spec.command',
      'spec.extensions.dispatch/Image',
    ]);
    for (const reason of error.reasons) expect(error.message).toContain(reason);
  });

  it('yaml: the same refusal as a readable list on stderr, nothing on stdout', async () => {
    const run = await render({
      config: 'plain.yaml',
      request: 'invalid-request.json',
      runtime: 'dispatch-kind.yaml',
    });
    expect([run.code, run.stdout]).toEqual([2, '']);
    const lines = run.stderr.trimEnd().split('\n');
    expect(lines[0]).toBe('ErrInvalid: refused at step 4');
    expect(lines.slice(1).map((l) => l.slice(0, l.indexOf(': ')))).toEqual([
      '  - job',
      '  - generation',
      '  - spec.command',
      '  - spec.extensions.dispatch/Image',
    ]);
  });

  it('json: ErrUnsupported for a runtime that breaks the rules, every reason named', async () => {
    const run = await render(
      { config: 'plain.yaml', request: 'request.json', runtime: 'broken.yaml' },
      'json',
    );
    expect([run.code, run.stderr]).toEqual([2, '']);
    const { error } = JSON.parse(run.stdout) as { error: { type: string; reasons: string[] } };
    expect(error.type).toBe('ErrUnsupported');
    expect(error.reasons).toHaveLength(3);
    expect(error.reasons.join('\n')).toMatch(
      /spec\.mlPolicy\.mpi is set[^]*restartPolicy is OnFailure[^]*backoffLimit is 3/,
    );
    for (const reason of error.reasons) expect(reason).toMatch(/^ClusterTrainingRuntime\/dispatch-kind: /);
  });

  it("yaml: the allow-list is checked with the manifest's kind and name, not the request's RuntimeRef", async () => {
    // The request names ClusterTrainingRuntime/dispatch-kind, which is allowed; the manifest is a TrainingRuntime.
    const run = await render({
      config: 'allow-cluster.yaml',
      request: 'request.json',
      runtime: 'namespaced.yaml',
    });
    expect([run.code, run.stdout]).toEqual([2, '']);
    expect(run.stderr).toBe(
      'ErrUnsupported: refused at step 2\n' +
        '  - runtime TrainingRuntime/dispatch-kind is not in the configured runtimes (ClusterTrainingRuntime/dispatch-kind)\n',
    );
  });
});

describe.concurrent('render: any other failure, exit 1 with one clear line', () => {
  const oneLine = (run: Run) => {
    expect([run.code, run.stdout]).toEqual([1, '']);
    expect(run.stderr.endsWith('\n') && !run.stderr.slice(0, -1).includes('\n')).toBe(true);
    return run.stderr.slice(0, -1);
  };

  it('a missing file', async () => {
    const run = await render(
      { config: 'plain.yaml', request: 'no-such-request.json', runtime: 'dispatch-kind.yaml' },
      'json',
    );
    expect(oneLine(run)).toBe(
      `dispatch-kubeflow: cannot read ${path.join(dir, 'no-such-request.json')}: ENOENT`,
    );
  });

  it('bad YAML, named with its file, line and column', async () => {
    const run = await render({ config: 'plain.yaml', request: 'bad.yaml', runtime: 'dispatch-kind.yaml' });
    expect(oneLine(run)).toMatch(
      new RegExp(
        `^dispatch-kubeflow: ${path.join(dir, 'bad.yaml')} is not valid YAML or JSON: .+ at line 2, column 1$`,
      ),
    );
  });

  it('an invalid configuration, naming every configuration error', async () => {
    const run = await render(
      { config: 'invalid-config.yaml', request: 'request.json', runtime: 'dispatch-kind.yaml' },
      'json',
    );
    expect(oneLine(run)).toBe(
      `dispatch-kubeflow: configuration ${path.join(dir, 'invalid-config.yaml')} is not valid: ` +
        'namespace: not a valid namespace name (DNS-1123 label); timeouts.call: not a Go duration (e.g. "30s", "1m30s"); ' +
        'extra: unknown field; kueue.queue: required in kueue mode; kueue.admissionCheck: required in kueue mode',
    );
  });

  it('a runtime file that is not a runtime', async () => {
    const run = await render({ config: 'plain.yaml', request: 'request.json', runtime: 'pod.yaml' });
    expect(oneLine(run)).toBe(
      `dispatch-kubeflow: ${path.join(dir, 'pod.yaml')}: not a TrainingRuntime or ClusterTrainingRuntime manifest ` +
        '(kind: must be one of "TrainingRuntime", "ClusterTrainingRuntime")',
    );
  });
});
