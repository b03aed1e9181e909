// The Temporal contract in one table (docs/contract.md §1, §7, §8, §9): every workflow type with
// what it takes and answers (zod schemas), its workflow id, the static summary a caller gives it
// and the search attributes it is started with. The client starts every workflow from here and
// parses every result with the table's schema, tolerantly (model/tolerant.ts: a field a newer worker
// adds is ignored, the known ones checked), while inputs stay strict; the worker's preflight starts
// its probe from here.
// The names, ids and search attribute keys it is built from are in names.ts and search-attributes.ts,
// which stay free of zod: the workflows and their interceptors import those, never this table.
import type { SearchAttributePair } from '@temporalio/common';
import { z } from 'zod';
import { TrainJobRefSchema, TrainJobStateSchema, OutcomeSchema, type TrainJobRef } from '../model/operations.js';
import { CapabilitiesRequestSchema, StartRequestSchema, type StartRequest } from '../model/request.js';
import { BackendGatesSchema, CapabilitiesSchema, StartResultSchema } from '../model/results.js';
import { tolerant } from '../model/tolerant.js';
import { DispatchJobId, DispatchTrainJob } from './search-attributes.js';
import { capabilitiesWorkflowId, OPERATIONS, probeWorkflowId, startWorkflowId, WorkflowTypes, type Operation, type WorkflowKey, operationWorkflowId } from './names.js';
import { operationSummary, startSummary } from './summaries.js';

/** What a Start's id, summary and search attributes are built from. */
export interface StartSubject {
  namespace: string;
  /** The TrainJob's name (trainJobName). */
  name: string;
  request: Pick<StartRequest, 'job' | 'generation' | 'submission' | 'attempt'>;
}

/** One workflow type: `Subject` is what its id, summary and search attributes are built from. */
export interface WorkflowContract<Subject, Result, Type extends string = string> {
  type: Type;
  /** The one argument it takes; undefined: none. */
  input: z.ZodType | undefined;
  /** How a caller reads the result: tolerantly (a field a newer worker adds is ignored). */
  result: z.ZodType<Result>;
  id(subject: Subject): string;
  summary?(subject: Subject): string;
  searchAttributes(subject: Subject): SearchAttributePair[];
}

type Summarised<C extends WorkflowContract<never, unknown>> = C & Required<Pick<C, 'summary'>>;

const operation = <O extends Operation, R>(op: O, result: z.ZodType<R>): Summarised<WorkflowContract<TrainJobRef, R, (typeof WorkflowTypes)[O]>> => ({
  type: WorkflowTypes[op],
  input: TrainJobRefSchema,
  result,
  id: (ref) => operationWorkflowId(op, ref),
  summary: (ref) => operationSummary(op, ref),
  searchAttributes: (ref) => [{ key: DispatchTrainJob, value: ref.name }],
});

export const Workflows = {
  start: {
    type: WorkflowTypes.start,
    input: StartRequestSchema,
    result: tolerant(StartResultSchema),
    id: ({ namespace, name, request }: StartSubject) => startWorkflowId(namespace, name, request.attempt),
    summary: ({ namespace, name, request }: StartSubject) => startSummary(request, namespace, name),
    searchAttributes: ({ name, request }: StartSubject) => [
      { key: DispatchJobId, value: request.job },
      { key: DispatchTrainJob, value: name },
    ],
  },
  capabilities: {
    type: WorkflowTypes.capabilities,
    input: CapabilitiesRequestSchema,
    result: tolerant(CapabilitiesSchema),
    id: ({ namespace, unique }: { namespace: string; unique: string }) => capabilitiesWorkflowId(namespace, unique),
    searchAttributes: () => [],
  },
  probe: {
    type: WorkflowTypes.probe,
    input: undefined,
    result: tolerant(BackendGatesSchema),
    id: ({ namespace }: { namespace: string }) => probeWorkflowId(namespace),
    summary: ({ namespace }: { namespace: string }) => `Preflight probe of namespace ${namespace}`,
    searchAttributes: () => [],
  },
  open: operation('open', tolerant(TrainJobStateSchema)),
  hold: operation('hold', tolerant(TrainJobStateSchema)),
  release: operation('release', tolerant(TrainJobStateSchema)),
  stop: operation('stop', tolerant(TrainJobStateSchema)),
  watch: operation('watch', tolerant(OutcomeSchema)),
} as const satisfies { [K in WorkflowKey]: WorkflowContract<never, unknown, (typeof WorkflowTypes)[K]> };

/** The operations' entries, by operation. */
export const OperationWorkflows: { [K in Operation]: (typeof Workflows)[K] } = Object.fromEntries(
  OPERATIONS.map((op) => [op, Workflows[op]]),
) as { [K in Operation]: (typeof Workflows)[K] };
