// The codec's keys, from the environment: DISPATCH_CODEC_KEYS lists every key a payload may have
// been encrypted with, by id; DISPATCH_CODEC_KEY_ID names the one new payloads are encrypted with.
// Rotation is adding a key, making it current, and dropping the old one once no history needs it.
// A half-configured codec is an error, never a silent fallback to plaintext.

export const CODEC_KEYS_ENV = 'DISPATCH_CODEC_KEYS';
export const CODEC_KEY_ID_ENV = 'DISPATCH_CODEC_KEY_ID';

/** AES-256: 32 bytes of key. */
export const KEY_BYTES = 32;

/** Key ids travel in payload metadata and in error messages: short, printable, unambiguous. */
const KEY_ID = /^[A-Za-z0-9._-]{1,64}$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export interface CodecKeys {
  /** The key new payloads are encrypted with. */
  readonly currentKeyId: string;
  /** Every key a payload may be decrypted with, by id (the current one among them). */
  readonly keys: ReadonlyMap<string, Buffer>;
}

export class CodecKeyError extends Error {
  override readonly name = 'CodecKeyError';
}

/**
 * Parses `id1:base64key,id2:base64key` and the current id. Errors name the variable, the entry and
 * what is wrong with it, never the key material.
 */
export function parseCodecKeys(spec: string, currentKeyId?: string): CodecKeys {
  const keys = new Map<string, Buffer>();
  const entries = spec.split(',').map((entry) => entry.trim());
  entries.forEach((entry, index) => {
    const where = `${CODEC_KEYS_ENV} entry ${index + 1}`;
    const colon = entry.indexOf(':');
    if (colon < 0) throw new CodecKeyError(`${where}: must be <key id>:<base64 key>`);
    const id = entry.slice(0, colon);
    const encoded = entry.slice(colon + 1);
    if (!KEY_ID.test(id))
      throw new CodecKeyError(`${where}: key id ${JSON.stringify(id)} must be 1 to 64 of A-Z a-z 0-9 . _ -`);
    if (keys.has(id)) throw new CodecKeyError(`${where}: key id ${id} is listed twice`);
    if (!BASE64.test(encoded))
      throw new CodecKeyError(`${where} (key ${id}): the key is not standard base64`);
    const key = Buffer.from(encoded, 'base64');
    if (key.length !== KEY_BYTES) {
      throw new CodecKeyError(
        `${where} (key ${id}): the key is ${key.length} bytes; AES-256-GCM needs ${KEY_BYTES}`,
      );
    }
    keys.set(id, key);
  });
  const current = currentKeyId?.trim() || (keys.size === 1 ? [...keys.keys()][0]! : undefined);
  if (current === undefined) {
    throw new CodecKeyError(
      `${CODEC_KEY_ID_ENV} must name the key new payloads are encrypted with (one of ${[...keys.keys()].join(', ')})`,
    );
  }
  if (!keys.has(current)) {
    throw new CodecKeyError(
      `${CODEC_KEY_ID_ENV} ${current} is not among the keys of ${CODEC_KEYS_ENV} (${[...keys.keys()].join(', ')})`,
    );
  }
  return { currentKeyId: current, keys };
}

/** The keys the environment configures, or undefined when the codec is off (neither variable set). */
export function codecKeysFromEnv(env: NodeJS.ProcessEnv = process.env): CodecKeys | undefined {
  const spec = env[CODEC_KEYS_ENV]?.trim();
  const current = env[CODEC_KEY_ID_ENV]?.trim();
  if (!spec) {
    if (current)
      throw new CodecKeyError(
        `${CODEC_KEY_ID_ENV} is set but ${CODEC_KEYS_ENV} is not: no key to encrypt with`,
      );
    return undefined;
  }
  return parseCodecKeys(spec, current);
}
