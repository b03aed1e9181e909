// What the operations after Start take and answer (docs/contract.md §9): TrainJobRef in,
// TrainJobState or Outcome out, as plain JSON. The pure core imports only the types of this module
// (they vanish at compile time), so workflow code never loads zod for them.
import { z } from 'zod';
import { OUTCOME_PHASES, PHASES } from './constants.js';
import { DNS1123_SUBDOMAIN } from './request.js';

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** `{namespace, name, uid}` of a TrainJob: a StartResult's, or the `ref` of a failure's details. */
export const TrainJobRefSchema = z.strictObject({
  namespace: z
    .string()
    .regex(DNS1123_LABEL, { error: 'not a valid namespace name (DNS-1123 label)' })
    .max(63, { error: 'longer than 63 characters' }),
  name: z
    .string()
    .regex(DNS1123_SUBDOMAIN, { error: 'not a valid TrainJob name (DNS-1123 subdomain)' })
    .max(253, { error: 'longer than 253 characters' }),
  uid: z
    .string()
    .min(1, { error: 'must not be empty' })
    .refine((s) => !s.includes('/'), { error: 'must not contain "/"' }),
});
export type TrainJobRef = z.infer<typeof TrainJobRefSchema>;

export const PhaseSchema = z.enum(PHASES);
export type Phase = z.infer<typeof PhaseSchema>;

export const TrainJobStateSchema = z.strictObject({
  ref: TrainJobRefSchema,
  phase: PhaseSchema,
  /** Whether the TrainJob carries dispatch's held annotation with the value "true". */
  held: z.boolean(),
  /** What the phase was read from, and anything observed that is not as it should be. */
  reasons: z.array(z.string()),
  /**
   * MultiKueue (docs/contract.md §11): the worker cluster Kueue chose for the job, its Workload's
   * status.clusterName, once known; absent otherwise. Readers of older workers never see it.
   */
  cluster: z.string().optional(),
});
export type TrainJobState = z.infer<typeof TrainJobStateSchema>;

export const OutcomePhaseSchema = z.enum(OUTCOME_PHASES);
export type OutcomePhase = z.infer<typeof OutcomePhaseSchema>;

export const OutcomeSchema = z.strictObject({
  ref: TrainJobRefSchema,
  phase: OutcomePhaseSchema,
  /** The deciding condition's reason (e.g. `AllJobsCompleted`, `DeadlineExceeded`), or dispatch's. */
  reason: z.string(),
  message: z.string(),
  /** The exit code of the first `node` container of the job's pods that terminated non-zero (Failed only). */
  exitCode: z.int().optional(),
  /** When the deciding condition last changed; for Absent, when the TrainJob was seen gone. */
  finishedAt: z.iso.datetime({ offset: true }),
  /** MultiKueue: the worker cluster the job ran on (its Workload's status.clusterName), when known. */
  cluster: z.string().optional(),
});
export type Outcome = z.infer<typeof OutcomeSchema>;

