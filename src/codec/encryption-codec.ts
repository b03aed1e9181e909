// The opt-in PayloadCodec that keeps payloads private from the Temporal server: every payload is
// serialized (as the Payload protobuf, like Temporal's encryption samples in every SDK) and sealed
// with AES-256-GCM under the current key. The key id rides in the metadata, in the clear, so that a
// payload names the key it needs; it is also the GCM associated data, so that relabelling a payload
// with another key id fails authentication like any other change.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Payload, PayloadCodec } from '@temporalio/common';
import proto from '@temporalio/proto';
import type { CodecKeys } from './keys.js';

const { Payload: PayloadMessage } = proto.temporal.api.common.v1;

export const ENCODING_ENCRYPTED = 'binary/encrypted';
export const METADATA_ENCODING = 'encoding';
export const METADATA_KEY_ID = 'encryption-key-id';

const IV_BYTES = 12;
const TAG_BYTES = 16;
const CIPHER = 'aes-256-gcm';

const utf8 = (text: string) => Buffer.from(text, 'utf8');
const text = (bytes: Uint8Array | null | undefined) =>
  bytes ? Buffer.from(bytes).toString('utf8') : undefined;

export class CodecError extends Error {
  override readonly name: string = 'CodecError';
}

/** A payload sealed with a key this process does not have: decoding it needs that key added. */
export class UnknownKeyError extends CodecError {
  override readonly name = 'UnknownKeyError';
  constructor(
    readonly keyId: string,
    known: Iterable<string>,
  ) {
    super(
      `payload is encrypted with key ${keyId}, which is not among the known keys (${[...known].join(', ')}); add it to DISPATCH_CODEC_KEYS to decode it`,
    );
  }
}

export const isEncrypted = (payload: Payload) =>
  text(payload.metadata?.[METADATA_ENCODING]) === ENCODING_ENCRYPTED;

export class EncryptionCodec implements PayloadCodec {
  constructor(private readonly keys: CodecKeys) {}

  get currentKeyId(): string {
    return this.keys.currentKeyId;
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => this.seal(payload));
  }

  /** Payloads that are not encrypted pass through: history written before the codec was on still reads. */
  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => (isEncrypted(payload) ? this.open(payload) : payload));
  }

  private seal(payload: Payload): Payload {
    const keyId = this.keys.currentKeyId;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(CIPHER, this.keys.keys.get(keyId)!, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(utf8(keyId));
    const plain = PayloadMessage.encode(payload).finish();
    const data = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
    return {
      metadata: { [METADATA_ENCODING]: utf8(ENCODING_ENCRYPTED), [METADATA_KEY_ID]: utf8(keyId) },
      data,
    };
  }

  private open(payload: Payload): Payload {
    const keyId = text(payload.metadata?.[METADATA_KEY_ID]);
    if (!keyId)
      throw new CodecError(
        `encrypted payload has no ${METADATA_KEY_ID} metadata: it cannot say which key opens it`,
      );
    const key = this.keys.keys.get(keyId);
    if (!key) throw new UnknownKeyError(keyId, this.keys.keys.keys());
    const data = Buffer.from(payload.data ?? []);
    if (data.length < IV_BYTES + TAG_BYTES) {
      throw new CodecError(
        `payload encrypted with key ${keyId} is ${data.length} bytes, shorter than its IV and tag: it was altered`,
      );
    }
    const decipher = createDecipheriv(CIPHER, key, data.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
    decipher.setAAD(utf8(keyId));
    decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
    let plain: Buffer;
    try {
      plain = Buffer.concat([
        decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)),
        decipher.final(),
      ]);
    } catch {
      throw new CodecError(
        `payload encrypted with key ${keyId} failed authentication: it was altered, or the key listed as ${keyId} is not the one that sealed it`,
      );
    }
    return PayloadMessage.decode(plain);
  }
}
