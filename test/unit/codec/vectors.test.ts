// The codec's shared test vectors (test/vectors/codec.json), made once by this codec and decoded by
// the Go client's codec too (go/dispatchkubeflow/codec_test.go), which also seals each plaintext to the same bytes.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Payload } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { EncryptionCodec, UnknownKeyError } from '../../../src/codec/encryption-codec.js';
import { CODEC_KEYS_ENV, codecKeysFromEnv, CODEC_KEY_ID_ENV } from '../../../src/codec/keys.js';

interface VectorPayload {
  metadata: Record<string, string>;
  data: string;
}

const file = join(import.meta.dirname, '..', '..', 'vectors', 'codec.json');
const { keys, vectors, refused } = JSON.parse(readFileSync(file, 'utf8')) as {
  keys: Record<string, string>;
  vectors: { what: string; keyId: string; plaintext: VectorPayload; ciphertext: VectorPayload }[];
  refused: { what: string; ciphertext: VectorPayload; error: string }[];
};

const payload = ({ metadata, data }: VectorPayload): Payload => ({
  metadata: Object.fromEntries(Object.entries(metadata).map(([k, v]) => [k, Buffer.from(v, 'base64')])),
  data: Buffer.from(data, 'base64'),
});
/** A payload as comparable text: metadata and data as base64. */
const plain = (p: Payload): VectorPayload => ({
  metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
  data: Buffer.from(p.data ?? []).toString('base64'),
});
const codec = (current: string) =>
  new EncryptionCodec(codecKeysFromEnv({ [CODEC_KEYS_ENV]: keys[CODEC_KEYS_ENV], [CODEC_KEY_ID_ENV]: current })!);

describe('the shared codec vectors (test/vectors/codec.json)', () => {
  it('are there: both key ids, and altered payloads', () => {
    expect(new Set(vectors.map((v) => v.keyId))).toEqual(new Set(['k1', 'k2.rotated']));
    expect(refused.length).toBeGreaterThan(0);
  });

  it.each(vectors.flatMap((v) => ['k1', 'k2.rotated'].map((current) => [v.what, current, v] as const)))(
    '%s: decodes to its plaintext while %s is current',
    async (_what, current, vector) => {
      const [opened] = await codec(current).decode([payload(vector.ciphertext)]);
      expect(plain(opened!)).toEqual(vector.plaintext);
    },
  );

  it.each(refused.map((r) => [r.what, r] as const))('%s: refused', async (_what, r) => {
    await expect(codec('k1').decode([payload(r.ciphertext)])).rejects.toThrow(r.error);
  });

  it('a key id not among the keys is an UnknownKeyError', async () => {
    const unknown = refused.find((r) => r.error.includes('not among the known keys'))!;
    await expect(codec('k1').decode([payload(unknown.ciphertext)])).rejects.toBeInstanceOf(UnknownKeyError);
  });
});
