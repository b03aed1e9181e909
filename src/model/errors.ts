// The six error types of docs/contract.md §6, in one module. Workflow code imports this module, so
// it stays free of zod: every workflow instantiates the modules it imports (docs/performance.md);
// the schemas of these shapes are in error-schemas.ts. It knows nothing of Temporal, so src/kube and
// src/core may import it: the failures Temporal carries are made in error-failures.ts.
import type { TrainJobRef } from './operations.js';

export const ERROR_TYPES = [
  'ErrInvalid',
  'ErrUnsupported',
  'ErrRejected',
  'ErrUnreachable',
  'ErrReadOnly',
  'ErrOutcomeUnknown',
] as const;
export type ErrorType = (typeof ERROR_TYPES)[number];

export function isErrorType(value: unknown): value is ErrorType {
  return (ERROR_TYPES as readonly unknown[]).includes(value);
}

/** Whether the caller may retry, per docs/contract.md §6. */
export const CALLER_RETRY: Record<ErrorType, 'no' | 'yes' | 'later' | 'with care'> = {
  ErrInvalid: 'no',
  ErrUnsupported: 'no',
  ErrRejected: 'no',
  ErrUnreachable: 'yes',
  ErrReadOnly: 'later',
  ErrOutcomeUnknown: 'with care',
};

/** What each type means, for the head of its message. */
const SUMMARY: Record<ErrorType, string> = {
  ErrInvalid: 'invalid start request',
  ErrUnsupported: 'not supported on Kubeflow',
  ErrRejected: 'rejected',
  ErrUnreachable: 'Kubernetes API unreachable',
  ErrReadOnly: 'backend is read-only',
  ErrOutcomeUnknown: 'outcome unknown',
};

/** The details of every failure: `{reasons, step, ref?}` (ObjectRefSchema and FailureDetailsSchema). */
export interface FailureDetails {
  reasons: string[];
  step: number;
  ref?: TrainJobRef;
}

function isTrainJobRef(value: unknown): value is TrainJobRef {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  const ref = value as Record<string, unknown>;
  return keys.length === 3 && ['namespace', 'name', 'uid'].every((key) => typeof ref[key] === 'string');
}

/** FailureDetailsSchema's check, by hand (test/unit/model/error-schemas.test.ts holds them equal). */
export function isFailureDetails(value: unknown): value is FailureDetails {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const { reasons, step, ref } = value as Record<string, unknown>;
  return (
    Array.isArray(reasons) &&
    reasons.every((reason) => typeof reason === 'string') &&
    Number.isSafeInteger(step) &&
    (ref === undefined || isTrainJobRef(ref))
  );
}

/**
 * What decided a refusal, beyond its type: `definite` when an answer of the API did (a denial, a
 * 4xx, an object read that differs), false when the lack of one did (a call unanswered past
 * CallBound, a wait that saw nothing within its bound). The preflight counts only a definite
 * refusal as proof that a gate is shut (docs/contract.md §8): silence proves nothing either way.
 */
export interface Evidence {
  definite: boolean;
}

/** The error a refusal is before it crosses Temporal: type, every reason, the step, and the ref. */
export class DispatchError extends Error {
  constructor(
    readonly type: ErrorType,
    readonly reasons: readonly string[],
    readonly step: number,
    readonly ref?: TrainJobRef,
    readonly evidence: Evidence = { definite: true },
  ) {
    super(formatMessage(type, reasons, ref));
    this.name = type;
  }

  get details(): FailureDetails {
    return { reasons: [...this.reasons], step: this.step, ...(this.ref ? { ref: this.ref } : {}) };
  }

  get retryableByCaller(): boolean {
    return CALLER_RETRY[this.type] === 'yes';
  }
}

export function formatMessage(type: ErrorType, reasons: readonly string[], ref?: TrainJobRef): string {
  const head = ref ? `${SUMMARY[type]} (TrainJob ${ref.namespace}/${ref.name})` : SUMMARY[type];
  return reasons.length === 0 ? head : `${head}: ${reasons.join('; ')}`;
}
