// The codec as client, worker and codec server take it: on when DISPATCH_CODEC_KEYS is set.
import type { DataConverter } from '@temporalio/common';
import { EncryptionCodec } from './encryption-codec.js';
import { codecKeysFromEnv } from './keys.js';

export {
  EncryptionCodec,
  UnknownKeyError,
  CodecError,
  ENCODING_ENCRYPTED,
  METADATA_KEY_ID,
} from './encryption-codec.js';
export {
  codecKeysFromEnv,
  parseCodecKeys,
  CodecKeyError,
  CODEC_KEYS_ENV,
  CODEC_KEY_ID_ENV,
  type CodecKeys,
} from './keys.js';

/** The encrypting codec the environment configures, or undefined when it is off. */
export function codecFromEnv(env: NodeJS.ProcessEnv = process.env): EncryptionCodec | undefined {
  const keys = codecKeysFromEnv(env);
  return keys ? new EncryptionCodec(keys) : undefined;
}

/** A data converter with the codec, for `new Client(...)` and `Worker.create(...)`; undefined: the default (plain JSON). */
export function dataConverterFromEnv(env: NodeJS.ProcessEnv = process.env): DataConverter | undefined {
  const codec = codecFromEnv(env);
  return codec ? { payloadCodecs: [codec] } : undefined;
}
