// What the workflows return (docs/contract.md §1, §7, §8).
import { z } from 'zod';
import { ObjectRefSchema } from './error-schemas.js';

export const StartResultSchema = z.strictObject({
  /** "<namespace>/<name>" */
  ref: z.string(),
  uid: z.string(),
  namespace: z.string(),
  name: z.string(),
  /** The runtime copy's name (the TrainJob's name). */
  runtimeCopy: z.string(),
  mode: z.enum(['plain', 'kueue']),
  /** The IdentityWeakener reason, when allowRankRestart waived a rule. */
  weakened: z.string().optional(),
});
export type StartResult = z.infer<typeof StartResultSchema>;

export const CapabilitiesSchema = z.strictObject({
  /** "<Kind>/<name>" of the runtime checked. */
  runtime: z.string(),
  /** Whether ProcsPerNode is honoured: only on runtimes with mlPolicy.torch. */
  procsPerNode: z.boolean(),
  weakened: z.string().optional(),
});
export type Capabilities = z.infer<typeof CapabilitiesSchema>;

export const GATES = ['reach', 'write', 'start'] as const;
export type Gate = (typeof GATES)[number];

export const BackendGatesSchema = z.strictObject({
  reach: z.boolean(),
  write: z.boolean(),
  start: z.boolean(),
  /** Why each unproven gate is not proven. */
  reasons: z.array(z.string()),
  /** When the probe ran, ISO 8601 (from workflow time). */
  checkedAt: z.string(),
  /**
   * True when `start` is false for want of an answer, not refused: the probe Start ended
   * ErrUnreachable or ErrOutcomeUnknown, ended ErrRejected because a call went unanswered or no
   * Workload appeared, or did not end within its bound. Starts are then refused with the retryable
   * ErrUnreachable, not ErrUnsupported (docs/contract.md §8). Absent: false.
   */
  startUnknown: z.boolean().optional(),
  /**
   * True when `write` is false for want of an answer: the SelfSubjectAccessReview went unanswered.
   * Starts are then refused with the retryable ErrUnreachable, not ErrReadOnly. Absent: false.
   */
  writeUnknown: z.boolean().optional(),
});
export type BackendGates = z.infer<typeof BackendGatesSchema>;

export const FindResultSchema = z.discriminatedUnion('state', [
  z.strictObject({ state: z.literal('InFlight'), workflowId: z.string() }),
  z.strictObject({ state: z.literal('Present'), ref: ObjectRefSchema, attemptToken: z.string() }),
  z.strictObject({ state: z.literal('Absent') }),
]);
export type FindResult = z.infer<typeof FindResultSchema>;
