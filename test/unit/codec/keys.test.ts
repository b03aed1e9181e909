// DISPATCH_CODEC_KEYS / DISPATCH_CODEC_KEY_ID: what configures the codec, and every way it is refused.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { codecFromEnv, dataConverterFromEnv } from '../../../src/codec/index.js';
import { codecKeysFromEnv, parseCodecKeys } from '../../../src/codec/keys.js';

const key = (bytes = 32) => randomBytes(bytes).toString('base64');

describe('codec keys from the environment', () => {
  it('off when neither variable is set: no codec, the default data converter', () => {
    expect(codecKeysFromEnv({})).toBeUndefined();
    expect(codecFromEnv({})).toBeUndefined();
    expect(dataConverterFromEnv({})).toBeUndefined();
  });

  it('several keys, the current one named', () => {
    const keys = codecKeysFromEnv({
      DISPATCH_CODEC_KEYS: `id1:${key()}, id2:${key()}`,
      DISPATCH_CODEC_KEY_ID: 'id2',
    })!;
    expect(keys.currentKeyId).toBe('id2');
    expect([...keys.keys.keys()]).toEqual(['id1', 'id2']);
    expect(dataConverterFromEnv({ DISPATCH_CODEC_KEYS: `id1:${key()}` })?.payloadCodecs).toHaveLength(1);
  });

  it('one key is current without DISPATCH_CODEC_KEY_ID', () => {
    expect(parseCodecKeys(`only:${key()}`).currentKeyId).toBe('only');
  });

  it.each([
    [
      { DISPATCH_CODEC_KEY_ID: 'id1' },
      'DISPATCH_CODEC_KEY_ID is set but DISPATCH_CODEC_KEYS is not: no key to encrypt with',
    ],
    [
      { DISPATCH_CODEC_KEYS: `a:${key()},b:${key()}` },
      'DISPATCH_CODEC_KEY_ID must name the key new payloads are encrypted with (one of a, b)',
    ],
    [
      { DISPATCH_CODEC_KEYS: `a:${key()}`, DISPATCH_CODEC_KEY_ID: 'b' },
      'DISPATCH_CODEC_KEY_ID b is not among the keys of DISPATCH_CODEC_KEYS (a)',
    ],
    [{ DISPATCH_CODEC_KEYS: key() }, 'DISPATCH_CODEC_KEYS entry 1: must be <key id>:<base64 key>'],
    [
      { DISPATCH_CODEC_KEYS: `a:${key()},a:${key()}`, DISPATCH_CODEC_KEY_ID: 'a' },
      'DISPATCH_CODEC_KEYS entry 2: key id a is listed twice',
    ],
    [
      { DISPATCH_CODEC_KEYS: `a b:${key()}` },
      'DISPATCH_CODEC_KEYS entry 1: key id "a b" must be 1 to 64 of A-Z a-z 0-9 . _ -',
    ],
    [
      { DISPATCH_CODEC_KEYS: `a:${key(16)}` },
      'DISPATCH_CODEC_KEYS entry 1 (key a): the key is 16 bytes; AES-256-GCM needs 32',
    ],
    [
      { DISPATCH_CODEC_KEYS: 'a:not*base64' },
      'DISPATCH_CODEC_KEYS entry 1 (key a): the key is not standard base64',
    ],
  ])('refused: %o', (env, message) => {
    expect(() => codecKeysFromEnv(env)).toThrow(message);
  });

  it('errors never carry key material', () => {
    const secret = key(16);
    expect(() => codecKeysFromEnv({ DISPATCH_CODEC_KEYS: `a:${secret}` })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining(secret) }),
    );
  });
});
