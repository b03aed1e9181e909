// The six error types of docs/contract.md §6, in one module: how the worker builds a Temporal
// ApplicationFailure for each, and how a client maps a failure back to a typed error. Workflow code
// imports this module, so it stays free of zod: every workflow instantiates the modules it imports
// (docs/performance.md); the schemas of these shapes are in error-schemas.ts.
import { ApplicationFailure } from '@temporalio/common';

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

export interface ObjectRef {
  namespace: string;
  name: string;
  uid: string;
}

/** The details of every failure: `{reasons, step, ref?}` (ObjectRefSchema and FailureDetailsSchema). */
export interface FailureDetails {
  reasons: string[];
  step: number;
  ref?: ObjectRef;
}

function isObjectRef(value: unknown): value is ObjectRef {
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
    (ref === undefined || isObjectRef(ref))
  );
}

/** The error a refusal is before it crosses Temporal: type, every reason, the step, and the ref. */
export class DispatchError extends Error {
  constructor(
    readonly type: ErrorType,
    readonly reasons: readonly string[],
    readonly step: number,
    readonly ref?: ObjectRef,
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

export function formatMessage(type: ErrorType, reasons: readonly string[], ref?: ObjectRef): string {
  const head = ref ? `${SUMMARY[type]} (TrainJob ${ref.namespace}/${ref.name})` : SUMMARY[type];
  return reasons.length === 0 ? head : `${head}: ${reasons.join('; ')}`;
}

/**
 * The ApplicationFailure a workflow throws for an error: non-retryable (Temporal does not retry a
 * Start on its own; the caller decides, by type), details `{reasons, step, ref?}`.
 */
export function toApplicationFailure(error: DispatchError): ApplicationFailure {
  return ApplicationFailure.create({
    type: error.type,
    message: error.message,
    nonRetryable: true,
    details: [error.details],
  });
}

/**
 * The typed error behind a failure a client received (a WorkflowFailedError's cause, an
 * ApplicationFailure directly, or anything in between), or undefined when it carries none.
 */
export function fromFailure(error: unknown): DispatchError | undefined {
  for (let current: unknown = error; current instanceof Error; current = (current as Error).cause) {
    if (current instanceof ApplicationFailure && isErrorType(current.type)) {
      const given: unknown = current.details?.[0];
      const details = isFailureDetails(given) ? given : { reasons: [current.message], step: 0 };
      return new DispatchError(current.type, details.reasons, details.step, details.ref);
    }
  }
  return undefined;
}
