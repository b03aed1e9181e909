// Read-back (docs/start.md, step 8; docs/contract.md §4a): what Start wrote must be what the server holds,
// allowing what admission webhooks and CRD defaults legitimately add.
import { describe, expect, it } from 'vitest';
import { compareReadBack, diffJson } from '../../../../src/core/start/readback.js';
import { renderStart } from '../../../../src/core/start/render.js';
import { Annotations, Dispatch, Kueue, Labels, PodInfo, Trainer } from '../../../../src/model/constants.js';
import type { TrainJob } from '../../../../src/model/kube.js';
import { config, exampleRequest, KUEUE, loadInputRuntime, validOf } from '../../../golden/cases.js';

const KIND = { kind: 'ClusterTrainingRuntime', name: 'dispatch-kind' } as const;
const written = (mode: 'plain' | 'kueue' = 'plain'): TrainJob =>
  renderStart(
    validOf(exampleRequest(KIND)),
    loadInputRuntime('dispatch-kind'),
    config(mode === 'kueue' ? KUEUE : {}),
  ).trainJob;

/** The object as the API server would answer: our fields copied, plus what the server adds. */
function serverCopy(trainJob: TrainJob, edit: (t: TrainJob) => void = () => {}): TrainJob {
  const read = JSON.parse(JSON.stringify(trainJob)) as TrainJob;
  read.metadata.uid = '0b5b2c1e-1111-2222-3333-444455556666';
  read.metadata.resourceVersion = '12';
  read.metadata.creationTimestamp = '2026-01-01T00:00:00Z';
  read.spec.managedBy = Trainer.controllerManagedBy;
  // Trainer's webhook stamps every patch entry it sees.
  read.spec.runtimePatches = read.spec.runtimePatches.map((p) => ({ ...p, time: '2026-01-01T00:00:00Z' }));
  edit(read);
  return read;
}

/** The pod spec of our runtime patch entry, for edits of what the server holds. */
function podSpecOfOurPatch(t: TrainJob) {
  type PodSpec = {
    volumes: { downwardAPI: Record<string, unknown> }[];
    containers: { volumeMounts?: unknown[] }[];
  };
  const spec = t.spec.runtimePatches[0]!.trainingRuntimeSpec as {
    template: { spec: { replicatedJobs: { template: { spec: { template: { spec: PodSpec } } } }[] } };
  };
  return spec.template.spec.replicatedJobs[0]!.template.spec.template.spec;
}
const OUR_POD_SPEC = `spec.runtimePatches[manager=${Dispatch.patchManager}].trainingRuntimeSpec.template.spec.replicatedJobs[0].template.spec.template.spec`;

/** Reverses key order everywhere: JSON from the server need not keep ours. */
function reordered<T>(value: T): T {
  if (Array.isArray(value)) return value.map(reordered) as T;
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .reverse()
      .map(([k, v]) => [k, reordered(v)]),
  ) as T;
}

describe('compareReadBack passes', () => {
  it.each(['plain', 'kueue'] as const)('%s mode: a read equal to the written', (mode) => {
    const trainJob = written(mode);
    expect(compareReadBack(trainJob, JSON.parse(JSON.stringify(trainJob)) as TrainJob, mode)).toEqual([]);
    expect(compareReadBack(trainJob, serverCopy(trainJob), mode)).toEqual([]);
  });

  it('with keys in another order', () => {
    expect(compareReadBack(written(), reordered(serverCopy(written())), 'plain')).toEqual([]);
  });

  it('with extra labels and annotations', () => {
    const read = serverCopy(written(), (t) => {
      t.metadata.labels!['kueue.x-k8s.io/extra'] = 'x';
      t.metadata.annotations!['kubectl.kubernetes.io/last-applied-configuration'] = '{}';
    });
    expect(compareReadBack(written(), read, 'plain')).toEqual([]);
  });

  it("with another manager's runtime patch, before or after ours", () => {
    const kueuePatch = {
      manager: Kueue.managerName,
      trainingRuntimeSpec: { template: { spec: { replicatedJobs: [] } } },
    };
    const after = serverCopy(written('kueue'), (t) => t.spec.runtimePatches.push(kueuePatch));
    const before = serverCopy(written('kueue'), (t) => t.spec.runtimePatches.unshift(kueuePatch));
    expect(compareReadBack(written('kueue'), after, 'kueue')).toEqual([]);
    expect(compareReadBack(written('kueue'), before, 'kueue')).toEqual([]);
  });

  it("with Kueue's spec.suspend in Kueue mode, whatever its value", () => {
    for (const suspend of [true, false, undefined]) {
      expect(
        compareReadBack(
          written('kueue'),
          serverCopy(written('kueue'), (t) => (t.spec.suspend = suspend)),
          'kueue',
        ),
      ).toEqual([]);
    }
  });

  it("with spec.managedBy defaulted to Trainer's controller, or absent", () => {
    expect(compareReadBack(written(), serverCopy(written()), 'plain')).toEqual([]);
    expect(
      compareReadBack(
        written(),
        serverCopy(written(), (t) => delete t.spec.managedBy),
        'plain',
      ),
    ).toEqual([]);
  });

  it('with other spec fields the CRD defaults or a webhook adds', () => {
    const read = serverCopy(written(), (t) => {
      t.spec.podTemplateOverrides = [];
      t.status = { conditions: [] };
    });
    expect(compareReadBack(written(), read, 'plain')).toEqual([]);
  });
});

describe('compareReadBack names each changed field', () => {
  it.each<[string, (t: TrainJob) => void, string[]]>([
    [
      'a label changed',
      (t) => (t.metadata.labels![Labels.jobId] = 'other'),
      [`metadata.labels["${Labels.jobId}"]: wrote "01jd0q3j0y6q7j7z4w2x5v8k9m", read "other"`],
    ],
    [
      'a label removed',
      (t) => delete t.metadata.labels![Labels.managedBy],
      [`metadata.labels["${Labels.managedBy}"]: wrote "dispatch", read absent`],
    ],
    [
      'an annotation changed',
      (t) => (t.metadata.annotations![Annotations.attemptToken] = '2-000000000000'),
      [`metadata.annotations["${Annotations.attemptToken}"]: wrote "1-6bf8c2a10267", read "2-000000000000"`],
    ],
    [
      'all labels gone',
      (t) => delete t.metadata.labels,
      [
        `metadata.labels["${Labels.managedBy}"]: wrote "dispatch", read absent`,
        `metadata.labels["${Labels.jobId}"]: wrote "01jd0q3j0y6q7j7z4w2x5v8k9m", read absent`,
        `metadata.labels["${Labels.generation}"]: wrote "3", read absent`,
        `metadata.labels["${Labels.submission}"]: wrote "12", read absent`,
      ],
    ],
    [
      'spec.runtimeRef',
      (t) => (t.spec.runtimeRef.kind = 'ClusterTrainingRuntime'),
      ['spec.runtimeRef.kind: wrote "TrainingRuntime", read "ClusterTrainingRuntime"'],
    ],
    [
      'spec.trainer.image',
      (t) => (t.spec.trainer.image = 'evil:latest'),
      ['spec.trainer.image: wrote "ghcr.io/example/train:1.4", read "evil:latest"'],
    ],
    [
      'a command item',
      (t) => (t.spec.trainer.command[5] = 'other.py'),
      ['spec.trainer.command[5]: wrote "train.py", read "other.py"'],
    ],
    [
      'the command length',
      (t) => t.spec.trainer.command.push('--more'),
      ['spec.trainer.command: wrote 8 items, read 9'],
    ],
    [
      'an env value',
      (t) => (t.spec.trainer.env[1]!.value = '0.2'),
      ['spec.trainer.env[1].value: wrote "0.1", read "0.2"'],
    ],
    [
      'a field added to spec.trainer',
      (t) => ((t.spec.trainer as unknown as Record<string, unknown>).args = ['x']),
      ['spec.trainer.args: wrote absent, read ["x"]'],
    ],
    [
      'numNodes removed',
      (t) => delete (t.spec.trainer as Partial<TrainJob['spec']['trainer']>).numNodes,
      ['spec.trainer.numNodes: wrote 2, read absent'],
    ],
    [
      'a quantity rewritten',
      (t) => (t.spec.trainer.resourcesPerNode!.limits['nvidia.com/gpu'] = 8),
      ['spec.trainer.resourcesPerNode.limits["nvidia.com/gpu"]: wrote "8", read 8'],
    ],
    [
      'spec.activeDeadlineSeconds',
      (t) => (t.spec.activeDeadlineSeconds = 60),
      ['spec.activeDeadlineSeconds: wrote 9000, read 60'],
    ],
    [
      'spec.activeDeadlineSeconds removed',
      (t) => delete t.spec.activeDeadlineSeconds,
      ['spec.activeDeadlineSeconds: wrote 9000, read absent'],
    ],
    [
      'our runtime patch missing',
      (t) => (t.spec.runtimePatches = []),
      [`spec.runtimePatches[manager=${Dispatch.patchManager}]: missing`],
    ],
    [
      'our runtime patch changed',
      (t) => {
        const spec = t.spec.runtimePatches[0]!.trainingRuntimeSpec as {
          template: {
            spec: {
              replicatedJobs: {
                template: { spec: { template: { metadata: { labels: Record<string, string> } } } };
              }[];
            };
          };
        };
        spec.template.spec.replicatedJobs[0]!.template.spec.template.metadata.labels[Labels.submission] =
          '13';
      },
      [
        `spec.runtimePatches[manager=${Dispatch.patchManager}].trainingRuntimeSpec.template.spec.replicatedJobs[0].template.spec.template.metadata.labels["${Labels.submission}"]: wrote "12", read "13"`,
      ],
    ],
    [
      "a default added inside our patch's volume (a server that defaults defaultMode)",
      (t) => {
        podSpecOfOurPatch(t).volumes[0]!.downwardAPI.defaultMode = 420;
      },
      [`${OUR_POD_SPEC}.volumes[0].downwardAPI.defaultMode: wrote absent, read 420`],
    ],
    [
      "our patch's volume mount pruned from container node",
      (t) => {
        delete podSpecOfOurPatch(t).containers[0]!.volumeMounts;
      },
      [
        `${OUR_POD_SPEC}.containers[0].volumeMounts: wrote [{"name":"${PodInfo.volume}","mountPath":"${PodInfo.mountPath}","readOnly":true}], read absent`,
      ],
    ],
    [
      'spec.managedBy set to MultiKueue',
      (t) => (t.spec.managedBy = 'kueue.x-k8s.io/multikueue'),
      [
        'spec.managedBy: "kueue.x-k8s.io/multikueue", not absent or "trainer.kubeflow.org/trainjob-controller"',
      ],
    ],
    [
      'spec.suspend false in plain mode',
      (t) => (t.spec.suspend = false),
      ['spec.suspend: wrote true, read false'],
    ],
    [
      'spec.suspend absent in plain mode',
      (t) => delete t.spec.suspend,
      ['spec.suspend: wrote true, read absent'],
    ],
  ])('%s', (_what, edit, reasons) => {
    expect(compareReadBack(written(), serverCopy(written(), edit), 'plain')).toEqual(reasons);
  });

  it('spec.trainer gone, shown shortened', () => {
    const reasons = compareReadBack(
      written(),
      serverCopy(written(), (t) => delete (t.spec as Partial<TrainJob['spec']>).trainer),
      'plain',
    );
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toMatch(
      /^spec\.trainer: wrote \{"image":"ghcr\.io\/example\/train:1\.4",.{40,80}…, read absent$/,
    );
  });

  it('names every difference at once', () => {
    const read = serverCopy(written(), (t) => {
      t.spec.trainer.image = 'x';
      t.spec.suspend = false;
      t.metadata.annotations![Annotations.comment] = 'x';
    });
    expect(compareReadBack(written(), read, 'plain')).toHaveLength(3);
  });

  it('Kueue mode: the queue label and the gate annotation are checked like the others', () => {
    const read = serverCopy(written('kueue'), (t) => {
      delete t.metadata.labels![Labels.kueueQueueName];
      t.metadata.annotations![Annotations.kueueAdmissionGatedBy] = 'someone/else';
    });
    expect(compareReadBack(written('kueue'), read, 'kueue')).toEqual([
      `metadata.labels["${Labels.kueueQueueName}"]: wrote "user-queue", read absent`,
      `metadata.annotations["${Annotations.kueueAdmissionGatedBy}"]: wrote "${Dispatch.defaultGate}", read "someone/else"`,
    ]);
  });

  it('a read with no spec or metadata at all', () => {
    const reasons = compareReadBack(written(), { apiVersion: Trainer.apiVersion } as TrainJob, 'plain');
    expect(reasons).toContainEqual(
      expect.stringMatching(
        /^spec\.runtimeRef: wrote \{"apiGroup":"trainer\.kubeflow\.org",.*, read absent$/,
      ),
    );
    expect(reasons).toContain(`spec.runtimePatches[manager=${Dispatch.patchManager}]: missing`);
    expect(reasons).toContain('spec.suspend: wrote true, read absent');
    expect(reasons.filter((r) => r.startsWith('metadata.'))).toHaveLength(6);
  });
});

describe('diffJson', () => {
  it('ignores key order and treats an undefined key as absent', () => {
    expect(diffJson('x', { a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 })).toEqual([]);
    expect(diffJson('x', { a: undefined }, {})).toEqual([]);
  });

  it('tells an array from an object and null from absent', () => {
    expect(diffJson('x', [], {})).toEqual(['x: wrote [], read {}']);
    expect(diffJson('x', { a: null }, {})).toEqual(['x.a: wrote null, read absent']);
  });
});
