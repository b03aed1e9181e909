// The encrypting payload codec: round trip, key rotation, an unknown key id, tamper detection.
import { randomBytes } from 'node:crypto';
import type { Payload } from '@temporalio/common';
import { defaultPayloadConverter } from '@temporalio/common';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CodecError,
  EncryptionCodec,
  ENCODING_ENCRYPTED,
  METADATA_KEY_ID,
  UnknownKeyError,
} from '../../../src/codec/encryption-codec.js';
import { parseCodecKeys } from '../../../src/codec/keys.js';

const key = () => randomBytes(32).toString('base64');
const k1 = key();
const k2 = key();
const codec = (spec: string, current?: string) => new EncryptionCodec(parseCodecKeys(spec, current));

const utf8 = (bytes: Uint8Array | null | undefined) => Buffer.from(bytes ?? []).toString('utf8');
/** A payload as plain data, so that protobuf message instances and object literals compare equal. */
const plain = (p: Payload) => ({
  metadata: Object.fromEntries(
    Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v).toString('hex')]),
  ),
  data: Buffer.from(p.data ?? []).toString('hex'),
});

const secretRequest = defaultPayloadConverter.toPayload({
  spec: { env: { API_TOKEN: 'hunter2-very-secret' } },
});

describe('EncryptionCodec', () => {
  it('round trip: decode(encode(p)) is p, and the sealed payload holds no plaintext', async () => {
    const c = codec(`k1:${k1}`);
    const [sealed] = await c.encode([secretRequest]);
    expect(utf8(sealed!.metadata!.encoding)).toBe(ENCODING_ENCRYPTED);
    expect(utf8(sealed!.metadata![METADATA_KEY_ID])).toBe('k1');
    expect(Buffer.from(sealed!.data!).includes('hunter2')).toBe(false);
    expect(Object.keys(sealed!.metadata!).sort()).toEqual([METADATA_KEY_ID, 'encoding'].sort());
    const [opened] = await c.decode([sealed!]);
    expect(plain(opened!)).toEqual(plain(secretRequest));
    expect(defaultPayloadConverter.fromPayload(opened!)).toEqual({
      spec: { env: { API_TOKEN: 'hunter2-very-secret' } },
    });
  });

  it('a fresh IV each time: the same payload never seals to the same bytes', async () => {
    const c = codec(`k1:${k1}`);
    const [a, b] = await c.encode([secretRequest, secretRequest]);
    expect(Buffer.from(a!.data!).equals(Buffer.from(b!.data!))).toBe(false);
  });

  it('payloads that are not encrypted pass through decode unchanged (history from before the codec)', async () => {
    const [out] = await codec(`k1:${k1}`).decode([secretRequest]);
    expect(out).toBe(secretRequest);
  });

  it('rotation: encrypts with the current key, decrypts with any known key id', async () => {
    const before = codec(`k1:${k1}`);
    const after = codec(`k1:${k1},k2:${k2}`, 'k2');
    const [old] = await before.encode([secretRequest]);
    const [fresh] = await after.encode([secretRequest]);
    expect(utf8(fresh!.metadata![METADATA_KEY_ID])).toBe('k2');
    const opened = await after.decode([old!, fresh!]);
    expect(opened.map(plain)).toEqual([plain(secretRequest), plain(secretRequest)]);
  });

  it('an unknown key id is refused clearly, naming the id and the known ones', async () => {
    const [sealed] = await codec(`k1:${k1}`).encode([secretRequest]);
    const other = codec(`k2:${k2},k3:${key()}`, 'k3');
    const error = await other.decode([sealed!]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnknownKeyError);
    expect((error as UnknownKeyError).keyId).toBe('k1');
    expect((error as Error).message).toBe(
      'payload is encrypted with key k1, which is not among the known keys (k2, k3); add it to DISPATCH_CODEC_KEYS to decode it',
    );
  });

  it('another key under the same id fails authentication, not with garbage', async () => {
    const [sealed] = await codec(`k1:${k1}`).encode([secretRequest]);
    await expect(codec(`k1:${k2}`).decode([sealed!])).rejects.toThrow(
      /^payload encrypted with key k1 failed authentication: it was altered, or the key listed as k1 is not the one that sealed it$/,
    );
  });

  it('tamper detection: a changed key id (relabelling to another known key) fails authentication', async () => {
    const both = codec(`k1:${k1},k2:${k1}`, 'k1'); // same key bytes: only the associated data differs
    const [sealed] = await both.encode([secretRequest]);
    const relabelled = {
      ...sealed!,
      metadata: { ...sealed!.metadata, [METADATA_KEY_ID]: Buffer.from('k2') },
    };
    await expect(both.decode([relabelled])).rejects.toThrow(/key k2 failed authentication/);
  });

  it('tamper detection: a truncated payload and one without a key id are refused', async () => {
    const c = codec(`k1:${k1}`);
    const [sealed] = await c.encode([secretRequest]);
    await expect(c.decode([{ ...sealed!, data: sealed!.data!.subarray(0, 20) }])).rejects.toThrow(
      /shorter than its IV and tag: it was altered/,
    );
    const { [METADATA_KEY_ID]: _, ...noId } = sealed!.metadata!;
    await expect(c.decode([{ ...sealed!, metadata: noId }])).rejects.toThrow(CodecError);
  });

  it('property: any payload round-trips; flipping any bit of the sealed data is detected', async () => {
    const c = codec(`k1:${k1},k2:${k2}`, 'k2');
    const payloads = fc.record({
      metadata: fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), fc.uint8Array({ maxLength: 24 }), {
        maxKeys: 4,
      }),
      data: fc.uint8Array({ maxLength: 512 }),
    });
    await fc.assert(
      fc.asyncProperty(payloads, fc.nat(), fc.integer({ min: 0, max: 7 }), async (payload, at, bit) => {
        const [sealed] = await c.encode([payload]);
        const [opened] = await c.decode([sealed!]);
        expect(plain(opened!)).toEqual(plain(payload));
        const data = Buffer.from(sealed!.data!);
        data[at % data.length]! ^= 1 << bit;
        await expect(c.decode([{ ...sealed!, data }])).rejects.toThrow(CodecError);
      }),
      { numRuns: 200 },
    );
  });
});
