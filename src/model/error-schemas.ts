// The zod schemas of the failure shapes in errors.ts, for clients and the exported JSON Schema.
// errors.ts declares the types by hand (workflow code imports it and must not load zod); the
// assignments below fail to compile if a schema and its type drift apart.
import { z } from 'zod';
import { ERROR_TYPES, type FailureDetails } from './errors.js';
import type { TrainJobRef } from './operations.js';

export const ErrorTypeSchema = z.enum(ERROR_TYPES);

export const ObjectRefSchema = z.strictObject({ namespace: z.string(), name: z.string(), uid: z.string() });

export const FailureDetailsSchema = z.object({
  reasons: z.array(z.string()),
  step: z.int(),
  ref: ObjectRefSchema.optional(),
});

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
const objectRefMatches: Same<z.infer<typeof ObjectRefSchema>, TrainJobRef> = true;
const failureDetailsMatch: Same<z.infer<typeof FailureDetailsSchema>, FailureDetails> = true;
void objectRefMatches;
void failureDetailsMatch;
