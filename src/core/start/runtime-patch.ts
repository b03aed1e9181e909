// dispatch's single spec.runtimePatches entry (docs/contract.md §4). Only fields the TrainJob CRD's patch
// schema lists are written: anything else would be pruned by the API server and then fail
// read-back. Nothing here has a default in that schema (a downwardAPI volume's defaultMode, a
// fieldRef's apiVersion), so the server stores the entry as written. Trainer v2.3.0's TrainJob
// webhook refuses env on containers node, dataset-initializer and model-initializer, so container
// node gets the pod's identity as files of a downward-API volume; init containers may have env.
import type { Config } from '../../model/config.js';
import { Dispatch, EnvVars, FieldPaths, Labels, LabelValues, PodInfo, Trainer } from '../../model/constants.js';
import type {
  ContainerPatch,
  EnvVar,
  FieldRef,
  RuntimePatch,
  TrainerRuntime,
  Volume,
  VolumeMount,
} from '../../model/kube.js';
import { trainerJob } from './runtime-shape.js';

export interface RuntimePatchInput {
  jobId: string;
  submission: number;
  /** Where the source runtime came from, for the error when it has no trainer job. */
  runtimeKey: string;
  probe: boolean;
}

const fieldRef = (fieldPath: string): FieldRef => ({ fieldRef: { fieldPath } });

/** The downward-API variables that tell the publish init container which pod and node it runs on. */
export function placementEnv(): EnvVar[] {
  return [
    { name: EnvVars.podName, valueFrom: fieldRef(FieldPaths.podName) },
    { name: EnvVars.nodeName, valueFrom: fieldRef(FieldPaths.nodeName) },
  ];
}

/** The pod volume dispatch-pod: the pod's name, UID, labels and annotations, one file each. */
export function podInfoVolume(): Volume {
  const files: [string, string][] = [
    [PodInfo.files.name, FieldPaths.podName],
    [PodInfo.files.uid, FieldPaths.podUid],
    [PodInfo.files.labels, FieldPaths.podLabels],
    [PodInfo.files.annotations, FieldPaths.podAnnotations],
  ];
  return {
    name: PodInfo.volume,
    downwardAPI: { items: files.map(([path, fieldPath]) => ({ path, ...fieldRef(fieldPath) })) },
  };
}

/** The read-only mount of dispatch-pod at /etc/dispatch/pod. */
export function podInfoMount(): VolumeMount {
  return { name: PodInfo.volume, mountPath: PodInfo.mountPath, readOnly: true };
}

/** The name of the runtime's trainer replicated job, which the patch targets. */
export function trainerJobName(runtime: TrainerRuntime, runtimeKey: string): string {
  const name = trainerJob(runtime)?.name;
  if (typeof name !== 'string' || name === '') {
    // The runtime rules refuse such a runtime before rendering; reaching here is a caller's bug.
    throw new Error(
      `runtime ${runtimeKey}: spec.template.spec.replicatedJobs has no named job labelled ` +
        `${Labels.trainerAncestorStep}: ${LabelValues.trainerStep}`,
    );
  }
  return name;
}

export function runtimePatch(
  runtime: TrainerRuntime,
  input: RuntimePatchInput,
  config: Config,
): RuntimePatch {
  const podSpec: Record<string, unknown> = {};
  if (input.probe) {
    podSpec.nodeSelector = { [Labels.probeNodeSelector]: LabelValues.probeNodeSelector };
  }
  // A fresh list for each container: nothing rendered shares structure.
  const mounts = () => ({ volumeMounts: [podInfoMount()] });
  podSpec.volumes = [podInfoVolume()];
  if (config.publish.via === 'initContainer') {
    const publisher: ContainerPatch = {
      name: config.publish.initContainer,
      env: placementEnv(),
      ...mounts(),
    };
    podSpec.initContainers = [publisher];
  }
  // No env on node (Trainer's webhook: "must not have envs for the ... node containers").
  const node: ContainerPatch = { name: Trainer.nodeContainer, ...mounts() };
  podSpec.containers = [node];

  return {
    manager: Dispatch.patchManager,
    trainingRuntimeSpec: {
      template: {
        spec: {
          replicatedJobs: [
            {
              name: trainerJobName(runtime, input.runtimeKey),
              template: {
                spec: {
                  template: {
                    metadata: {
                      labels: {
                        [Labels.jobId]: input.jobId.toLowerCase(),
                        [Labels.submission]: String(input.submission),
                      },
                    },
                    spec: podSpec,
                  },
                },
              },
            },
          ],
        },
      },
    },
  };
}
