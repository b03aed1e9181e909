// dispatch's single spec.runtimePatches entry (CONTRACT §4). Only fields the TrainJob CRD's patch
// schema lists are written: anything else would be pruned by the API server and then fail
// read-back.
import type { Config } from '../model/config.js';
import { Dispatch, EnvVars, Labels, LabelValues, Trainer } from '../model/constants.js';
import type { EnvVar, RuntimePatch, TrainerRuntime } from '../model/kube.js';
import { trainerJob } from './runtime-shape.js';

export interface RuntimePatchInput {
  jobId: string;
  submission: number;
  /** Where the source runtime came from, for the error when it has no trainer job. */
  runtimeKey: string;
  probe: boolean;
}

/** The downward-API variables that tell a rank which pod and node it runs on. */
export function placementEnv(): EnvVar[] {
  return [
    { name: EnvVars.podName, valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
    { name: EnvVars.nodeName, valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
  ];
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
  if (config.publish.via === 'initContainer') {
    podSpec.initContainers = [{ name: config.publish.initContainer, env: placementEnv() }];
  }
  podSpec.containers = [{ name: Trainer.nodeContainer, env: placementEnv() }];

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
