// The nine steps of Start, named as the seed names them: what the progress query, the current
// details in the Temporal UI and the DispatchStep search attribute show.

export const STEPS = {
  0: 'validate',
  1: 'backend gates',
  2: 'read runtime',
  3: 'check runtime',
  4: 'render',
  5: 'create runtime copy',
  6: 'create TrainJob',
  7: 'set owner',
  8: 'read-back',
  9: 'wait for Workload',
} as const;

export type StepNumber = keyof typeof STEPS;

/** What an operator reads: "5 create runtime copy". */
export const stepLabel = (step: StepNumber) => `${step} ${STEPS[step]}`;
