// A worker of a newer release, as far as its callers can tell: a payload codec for the worker's
// data converter that adds a field to every JSON object the worker writes (at the top and inside its
// `ref`, where §11 adds `cluster`), and takes it out again of every payload the worker reads, so the
// worker itself runs unchanged. Workflow inputs come from the callers without it; what reaches a
// caller with the field is what a newer worker would send: every workflow result. docs/contract.md
// §10: today's clients must read those results all the same.
//
// A failure's details ({reasons, step, ref?}) get the field at the top only: both clients read the
// ref of failure details strictly today (ObjectRefSchema; go/internal/contract ParseDetails wants
// exactly three keys), so a field added there would make a typed failure untyped. §10 speaks of
// results; that gap is left for the failure details' own change.
import type { Payload, PayloadCodec } from '@temporalio/common';

export const ADDED_FIELD = 'addedByANewerWorker';
export const ADDED_VALUE = { release: 'next', note: 'a field this release does not know' };

const JSON_PLAIN = 'json/plain';
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function rewrite(
  payload: Payload,
  change: (object: Record<string, unknown>) => Record<string, unknown>,
): Payload {
  if (Buffer.from(payload.metadata?.encoding ?? []).toString() !== JSON_PLAIN || !payload.data)
    return payload;
  const value: unknown = JSON.parse(Buffer.from(payload.data).toString('utf8'));
  if (!isObject(value)) return payload;
  return { ...payload, data: Buffer.from(JSON.stringify(change(value))) };
}

const isFailureDetails = (object: Record<string, unknown>) => 'step' in object && 'reasons' in object;

function added(object: Record<string, unknown>): Record<string, unknown> {
  const ref =
    isObject(object.ref) && !isFailureDetails(object)
      ? { ref: { ...object.ref, [ADDED_FIELD]: ADDED_VALUE } }
      : {};
  return { ...object, ...ref, [ADDED_FIELD]: ADDED_VALUE };
}

function removed(object: Record<string, unknown>): Record<string, unknown> {
  const { [ADDED_FIELD]: _top, ...rest } = object;
  if (!isObject(rest.ref)) return rest;
  const { [ADDED_FIELD]: _inRef, ...ref } = rest.ref;
  return { ...rest, ref };
}

/** First in the worker's payloadCodecs (before any encryption), so that it sees plain JSON. */
export class AddedResultFieldCodec implements PayloadCodec {
  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => rewrite(payload, added));
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => rewrite(payload, removed));
  }
}
