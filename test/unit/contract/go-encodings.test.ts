// What the Go client sends the worker (go/testdata/go-encodings.json, written by the Go types'
// JSON encoding in go/dispatchkubeflow/encodings_test.go), read by the worker's own validation: a
// Go caller's JSON is accepted as the TypeScript client's is, and refused with the type and the
// reasons the Go test names (those of the Go client's StartRequest.Validate and
// TrainJobRef.Validate: one validation, the same reasons on either side).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateTrainJobRef } from '../../../src/core/operations/validate-ref.js';
import { validate, validateCapabilitiesRequest } from '../../../src/core/start/validate.js';
import { DispatchError } from '../../../src/model/errors.js';

interface Encoding {
  what: string;
  kind: 'start' | 'ref' | 'capabilities';
  refused?: string;
  /** The Go client's own validation's reasons (StartRequest.Validate, TrainJobRef.Validate). */
  reasons?: string[];
  json: unknown;
}

const file = join(import.meta.dirname, '..', '..', '..', 'go', 'testdata', 'go-encodings.json');
const { encodings } = JSON.parse(readFileSync(file, 'utf8')) as { encodings: Encoding[] };

const check: Record<Encoding['kind'], (input: unknown) => unknown> = {
  start: validate,
  ref: validateTrainJobRef,
  capabilities: validateCapabilitiesRequest,
};

describe("the Go client's JSON, read by the worker's validation", () => {
  it('covers every kind of input, accepted and refused', () => {
    expect(new Set(encodings.map((e) => e.kind))).toEqual(new Set(['start', 'ref', 'capabilities']));
    expect(encodings.some((e) => e.refused)).toBe(true);
  });

  it.each(encodings.map((e) => [e.what, e] as const))('%s', (_what, encoding) => {
    const outcome = (() => {
      try {
        check[encoding.kind](encoding.json);
        return undefined;
      } catch (error) {
        return error;
      }
    })();
    if (encoding.refused === undefined) {
      expect(outcome).toBeUndefined();
    } else {
      expect(outcome).toBeInstanceOf(DispatchError);
      expect((outcome as DispatchError).type).toBe(encoding.refused);
      // One validation on either side: the Go client names the worker's reasons, in its order.
      if (encoding.kind !== 'capabilities') expect((outcome as DispatchError).reasons).toEqual(encoding.reasons);
    }
  });

  it('a Go request with every field set reads back as the same values', () => {
    const full = encodings[0]!;
    const valid = validate(full.json);
    expect(valid.request).toEqual(full.json);
    expect(valid.request.spec.name).toBe('résumé <&> "quoted"');
    expect(valid.image).toBe('ghcr.io/example/train:1.4');
  });
});
