// `dispatch-kubeflow render`, in-process: the functions behind the command (render-command.ts) and
// the exit codes cli.ts gives their outcomes. render-cli.test.ts runs the real bin for the contract.
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseAllDocuments, stringify } from 'yaml';
import { main } from '../../../src/cli/cli.js';
import {
  formatRefusal,
  formatRendered,
  renderOffline,
  runtimeFromManifest,
} from '../../../src/cli/render-command.js';
import { planStart } from '../../../src/core/start/plan.js';
import { PROLOGUE } from '../../../src/core/start/prologue.js';
import { Annotations } from '../../../src/model/constants.js';
import { DispatchError } from '../../../src/model/errors.js';
import type { TrainerRuntime } from '../../../src/model/kube.js';
import type { RuntimeRefExtension } from '../../../src/model/request.js';
import {
  GOLDEN_CASES,
  GOLDEN_DIR,
  config,
  exampleRequest,
  loadInputRuntime,
  validOf,
} from '../../golden/cases.js';
import { dispatchKind, dispatchKindWith } from '../../fixtures/runtimes/load.js';

const KIND: RuntimeRefExtension = { kind: 'ClusterTrainingRuntime', name: 'dispatch-kind' };
const source = (runtime: TrainerRuntime = dispatchKind()) => runtimeFromManifest(runtime, 'runtime.yaml');

/** The DispatchError a render throws (the test fails when it renders instead). */
function refusal(render: () => unknown): DispatchError {
  try {
    render();
  } catch (error) {
    expect(error).toBeInstanceOf(DispatchError);
    return error as DispatchError;
  }
  throw new Error('rendered, not refused');
}

const withIgnoreRule = () =>
  dispatchKindWith(
    ({ job }) =>
      (job.podFailurePolicy = {
        rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget' }] }],
      }),
  );

const WEAKENED =
  "allowRankRestart: the runtime's trainer job states a podFailurePolicy Ignore rule, so a failed rank can rerun under " +
  'the same DISPATCH_ATTEMPT and one execution can contain a restarted rank';

describe('runtimeFromManifest: the --runtime file', () => {
  it.each(['ClusterTrainingRuntime', 'TrainingRuntime'] as const)(
    'a %s manifest: the object, named by its kind and metadata.name',
    (kind) => {
      const manifest = { ...dispatchKind(), kind };
      expect(runtimeFromManifest(manifest, 'r.yaml')).toEqual({
        runtime: manifest,
        name: { kind, name: 'dispatch-kind' },
      });
    },
  );

  it.each([
    [
      'a Pod',
      { kind: 'Pod', metadata: { name: 'x' } },
      'kind: must be one of "TrainingRuntime", "ClusterTrainingRuntime"',
    ],
    [
      'a runtime without metadata.name',
      { kind: 'TrainingRuntime', metadata: {} },
      'metadata.name: is required',
    ],
    [
      'a runtime with an empty name',
      { kind: 'TrainingRuntime', metadata: { name: '' } },
      'metadata.name: empty name',
    ],
    [
      'a runtime with a name Kubernetes refuses',
      { kind: 'TrainingRuntime', metadata: { name: 'Bad_Name' } },
      'metadata.name: not a valid runtime name (DNS-1123 subdomain)',
    ],
    ['an empty file', null, 'kind: is required; metadata.name: is required'],
    ['a list', [dispatchKind()], 'kind: is required; metadata.name: is required'],
    ['a string', 'ClusterTrainingRuntime/dispatch-kind', 'kind: is required; metadata.name: is required'],
  ])('%s is refused, naming the file and what is wrong', (_, manifest, what) => {
    expect(() => runtimeFromManifest(manifest, 'r.yaml')).toThrow(
      new Error(`r.yaml: not a TrainingRuntime or ClusterTrainingRuntime manifest (${what})`),
    );
  });
});

describe('renderOffline: steps 2 to 4 of Start, without a cluster', () => {
  it("renders what Start renders: planStart's runtime copy and TrainJob, nothing weakened", () => {
    const planned = renderOffline(exampleRequest(KIND), source(), config());
    expect(planned).toEqual(planStart(validOf(exampleRequest(KIND)), dispatchKind(), config()));
    expect(planned).not.toHaveProperty('weakened');
  });

  it("the manifest's kind and name are the source runtime, whatever the request's RuntimeRef names", () => {
    const request = exampleRequest({ kind: 'ClusterTrainingRuntime', name: 'elsewhere' });
    const manifest = { ...dispatchKind(), kind: 'TrainingRuntime' };
    const planned = renderOffline(request, source(manifest), config());
    expect(planned.runtimeCopy.metadata?.annotations?.[Annotations.sourceRuntime]).toBe(
      'TrainingRuntime/dispatch-kind',
    );
  });

  it("docs/runtime-rules.md, rule: the allow-list checks the manifest's kind and name", () => {
    const manifest = { ...dispatchKind(), kind: 'TrainingRuntime' };
    // The request names an allowed runtime; the manifest, of another kind, is what would be copied.
    const allowOnlyCluster = config({ runtimes: ['ClusterTrainingRuntime/dispatch-kind'] });
    const error = refusal(() => renderOffline(exampleRequest(KIND), source(manifest), allowOnlyCluster));
    expect([error.type, error.step, error.reasons]).toEqual([
      'ErrUnsupported',
      2,
      [
        'runtime TrainingRuntime/dispatch-kind is not in the configured runtimes (ClusterTrainingRuntime/dispatch-kind)',
      ],
    ]);
    const allowNamespaced = config({ runtimes: ['TrainingRuntime/dispatch-kind'] });
    expect(
      renderOffline(
        exampleRequest({ kind: 'ClusterTrainingRuntime', name: 'other' }),
        source(manifest),
        allowNamespaced,
      ).trainJob,
    ).toBeDefined();
  });

  it('the request is checked first: an invalid request is ErrInvalid at step 4, whatever the runtime', () => {
    const request = { ...exampleRequest(KIND), job: 'nope', generation: -1 };
    const broken = dispatchKindWith(({ pod }) => (pod.restartPolicy = 'OnFailure'));
    const error = refusal(() =>
      renderOffline(request, source(broken), config({ runtimes: ['TrainingRuntime/x'] })),
    );
    expect([error.type, error.step]).toEqual(['ErrInvalid', 4]);
    expect(error.reasons.map((r) => r.split(':')[0])).toEqual(['job', 'generation']);
  });

  it('docs/runtime-rules.md: a runtime that breaks the rules is ErrUnsupported at step 3, naming every reason', () => {
    const broken = dispatchKindWith(({ pod, job }) => {
      pod.restartPolicy = 'OnFailure';
      job.backoffLimit = 3;
    });
    const error = refusal(() => renderOffline(exampleRequest(KIND), source(broken), config()));
    expect([error.type, error.step]).toEqual(['ErrUnsupported', 3]);
    expect(error.reasons).toHaveLength(2);
    expect(error.reasons[0]).toMatch(/^ClusterTrainingRuntime\/dispatch-kind: .*restartPolicy is OnFailure/);
    expect(error.reasons[1]).toMatch(/^ClusterTrainingRuntime\/dispatch-kind: .*backoffLimit is 3/);
  });

  it('docs/start.md, JobSpec table, ProcsPerNode: on a runtime without mlPolicy.torch it is ErrUnsupported at step 4', () => {
    const error = refusal(() => renderOffline(exampleRequest(KIND, { procsPerNode: 8 }), source(), config()));
    expect([error.type, error.step, error.reasons]).toEqual([
      'ErrUnsupported',
      4,
      [
        'spec.procsPerNode is 8; ClusterTrainingRuntime/dispatch-kind has no mlPolicy.torch, which would ignore it',
      ],
    ]);
  });

  it('docs/runtime-rules.md, allowRankRestart: a waived Ignore rule renders, with the IdentityWeakener reason', () => {
    expect(
      renderOffline(exampleRequest(KIND), source(withIgnoreRule()), config({ allowRankRestart: true }))
        .weakened,
    ).toBe(WEAKENED);
    const error = refusal(() => renderOffline(exampleRequest(KIND), source(withIgnoreRule()), config()));
    expect([error.type, error.step]).toEqual(['ErrUnsupported', 3]);
  });
});

describe('formatRendered', () => {
  const plain = () => renderOffline(exampleRequest(KIND), source(), config());
  const weakened = () =>
    renderOffline(exampleRequest(KIND), source(withIgnoreRule()), config({ allowRankRestart: true }));

  it('yaml: two documents, the runtime copy then the TrainJob', () => {
    const planned = plain();
    const docs = parseAllDocuments(formatRendered(planned, 'yaml'));
    expect(docs.map((d) => d.errors)).toEqual([[], []]);
    expect(docs.map((d) => d.toJS())).toEqual([planned.runtimeCopy, planned.trainJob]);
  });

  // The golden files hold what Start writes; the command must print the same objects, in the same form.
  it.each(GOLDEN_CASES.filter((c) => c.request).map((c) => [c.name, c] as const))(
    'yaml: golden case %s, byte for byte',
    (name, c) => {
      const runtime = loadInputRuntime(c.runtime);
      const text = formatRendered(
        renderOffline(c.request, runtimeFromManifest(runtime, name), c.config),
        'yaml',
      );
      const golden = readFileSync(path.join(GOLDEN_DIR, `${name}.yaml`), 'utf8');
      expect(`---\n${text}`).toBe(golden.slice(golden.indexOf('---\n')));
    },
  );

  it('yaml: the prologue is a literal block, each of its lines as the shell receives it', () => {
    const lines = formatRendered(plain(), 'yaml')
      .split('\n')
      .map((line) => line.trim());
    for (const line of PROLOGUE.split('\n').filter((l) => l.trim() !== ''))
      expect(lines).toContain(line.trim());
  });

  it('yaml: a weakened identity is a comment before the documents, which parse the same', () => {
    const planned = weakened();
    const text = formatRendered(planned, 'yaml');
    expect(text.split('\n')[0]).toBe(`# weakened: ${WEAKENED}`);
    expect(parseAllDocuments(text).map((d) => d.toJS())).toEqual([planned.runtimeCopy, planned.trainJob]);
    expect(formatRendered(plain(), 'yaml')).not.toContain('weakened');
  });

  it('json: {runtimeCopy, trainJob}, with weakened only when a waiver applied', () => {
    const planned = plain();
    const text = formatRendered(planned, 'json');
    expect(JSON.parse(text)).toEqual({ runtimeCopy: planned.runtimeCopy, trainJob: planned.trainJob });
    expect(text.endsWith('}\n')).toBe(true);
    const waived = weakened();
    expect(JSON.parse(formatRendered(waived, 'json'))).toEqual({
      runtimeCopy: waived.runtimeCopy,
      trainJob: waived.trainJob,
      weakened: WEAKENED,
    });
  });
});

describe('formatRefusal', () => {
  const error = new DispatchError(
    'ErrInvalid',
    ['job: not a valid JobID', 'spec.nodes: fewer than one node'],
    4,
  );

  it('json: {"error": {type, message, reasons}} on stdout, nothing on stderr', () => {
    const { stdout, stderr } = formatRefusal(error, 'json');
    expect(JSON.parse(stdout)).toEqual({
      error: { type: 'ErrInvalid', message: error.message, reasons: [...error.reasons] },
    });
    expect(error.message).toBe(
      'invalid start request: job: not a valid JobID; spec.nodes: fewer than one node',
    );
    expect(stderr).toBe('');
  });

  // `start` prints its failures with formatRefusal too; render's never carry a ref.
  it('a failure after the TrainJob was created carries its ref in both forms (an unknown uid said so)', () => {
    const ref = { namespace: 'ml-jobs', name: 'dj-01jd0q3j0y6q7j7z4w2x5v8k9m-s12', uid: '' };
    const unknown = new DispatchError(
      'ErrOutcomeUnknown',
      ['creating TrainJob ml-jobs/dj-01jd0q3j0y6q7j7z4w2x5v8k9m-s12: no answer'],
      6,
      ref,
    );
    expect(JSON.parse(formatRefusal(unknown, 'json').stdout)).toEqual({
      error: { type: 'ErrOutcomeUnknown', message: unknown.message, reasons: [...unknown.reasons], ref },
    });
    expect(formatRefusal(unknown, 'yaml').stderr.split('\n')[0]).toBe(
      'ErrOutcomeUnknown: refused at step 6, TrainJob ml-jobs/dj-01jd0q3j0y6q7j7z4w2x5v8k9m-s12 (uid unknown)',
    );
    const rejected = new DispatchError('ErrRejected', ['spec.suspend: wrote true, read false'], 8, {
      ...ref,
      uid: 'u-1',
    });
    expect(formatRefusal(rejected, 'yaml').stderr.split('\n')[0]).toBe(
      'ErrRejected: refused at step 8, TrainJob ml-jobs/dj-01jd0q3j0y6q7j7z4w2x5v8k9m-s12 (uid u-1)',
    );
  });

  it('yaml: a readable list of reasons on stderr, with the type and the step; nothing on stdout', () => {
    expect(formatRefusal(error, 'yaml')).toEqual({
      stdout: '',
      stderr:
        'ErrInvalid: refused at step 4\n  - job: not a valid JobID\n  - spec.nodes: fewer than one node\n',
    });
  });
});

describe('cli.ts: exit codes of render (0 rendered, 2 refused, 1 anything else)', () => {
  let dir: string;
  let out: string;
  let err: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'render-command-'));
    await writeFile(path.join(dir, 'config.yaml'), 'namespace: ml-jobs\nallowRankRestart: true\n');
    await writeFile(path.join(dir, 'request.json'), JSON.stringify(exampleRequest(KIND)));
    await writeFile(path.join(dir, 'torch.json'), JSON.stringify(exampleRequest(KIND, { procsPerNode: 4 })));
    await writeFile(path.join(dir, 'ignore.yaml'), stringify(withIgnoreRule()));
    await writeFile(path.join(dir, 'kind.yaml'), stringify(dispatchKind()));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));
  afterEach(() => {
    process.exitCode = undefined;
    vi.restoreAllMocks();
  });

  /** `render --config config.yaml --request <request> --runtime <runtime> [flags]`, files in the folder; the exit code. */
  async function run(request: string, runtime: string, ...flags: string[]): Promise<number> {
    out = '';
    err = '';
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((out += String(chunk)), true));
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((err += String(chunk)), true));
    const at = (name: string) => path.join(dir, name);
    await main([
      'node',
      'dispatch-kubeflow',
      'render',
      '--config',
      at('config.yaml'),
      '--request',
      at(request),
      '--runtime',
      at(runtime),
      ...flags,
    ]);
    return Number(process.exitCode ?? 0);
  }

  it('rendered: exit 0, the weakened comment first in yaml', async () => {
    expect(await run('request.json', 'ignore.yaml')).toBe(0);
    expect(out.startsWith(`# weakened: ${WEAKENED}\n`)).toBe(true);
    expect(err).toBe('');
  });

  it('refused: exit 2, the refusal on stderr in yaml', async () => {
    expect(await run('torch.json', 'kind.yaml')).toBe(2);
    expect([out, err.split('\n')[0]]).toEqual(['', 'ErrUnsupported: refused at step 4']);
  });

  it('anything else: exit 1, one line on stderr, nothing on stdout even in json', async () => {
    expect(await run('missing.json', 'kind.yaml', '--output', 'json')).toBe(1);
    expect([out, err]).toEqual([
      '',
      `dispatch-kubeflow: cannot read ${path.join(dir, 'missing.json')}: ENOENT\n`,
    ]);
  });
});
