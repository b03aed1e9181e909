// `dispatch-kubeflow codec-server`: the codec server with the keys of DISPATCH_CODEC_KEYS, until
// SIGINT or SIGTERM, with the options of command-options.ts. Its certificate, token file and JWKS
// file are read again when they change (tls-rotation.ts, reloading-files.ts): no restart to rotate.
import { readFile } from 'node:fs/promises';
import type { Server as HttpsServer } from 'node:https';
import { log } from '../observability/log.js';
import { parseListenAddress, type TlsFiles } from '../observability/listen.js';
import { callerCheckFrom } from './caller-check.js';
import type { CodecServerCommandOptions } from './command-options.js';
import { startCodecServer } from './codec-server.js';
import { rotateTlsOnChange } from './tls-rotation.js';
import { codecFromEnv, CODEC_KEYS_ENV } from './index.js';

async function tlsFiles(opts: { tlsCert?: string; tlsKey?: string }): Promise<TlsFiles | undefined> {
  if (opts.tlsCert === undefined && opts.tlsKey === undefined) return undefined;
  if (opts.tlsCert === undefined || opts.tlsKey === undefined)
    throw new Error('--tls-cert and --tls-key go together: give both, or neither for plain HTTP');
  const read = (flag: string, file: string) =>
    readFile(file).catch((error: Error) => {
      throw new Error(`${flag} ${file}: ${error.message}`);
    });
  return { cert: await read('--tls-cert', opts.tlsCert), key: await read('--tls-key', opts.tlsKey) };
}

const LOOPBACK = /^(127\.|::1$|localhost$)/;

export async function runCodecServer(
  opts: CodecServerCommandOptions,
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  const codec = codecFromEnv(env);
  if (!codec) throw new Error(`${CODEC_KEYS_ENV} is not set: the codec server has no key to decode with`);
  // A variable holds several origins or audiences as one value: split on commas and spaces.
  const split = (values: string[] = []) => values.flatMap((v) => v.split(/[\s,]+/)).filter((v) => v !== '');
  opts = { ...opts, uiOrigin: split(opts.uiOrigin), jwtAudience: split(opts.jwtAudience) };
  const { check, describe } = await callerCheckFrom(opts, (file, what) =>
    log('codec server reloaded its callers', { file, callers: what }),
  );
  const tls = await tlsFiles(opts);
  const server = await startCodecServer(
    opts.listen,
    { codecs: [codec], origins: opts.uiOrigin, callerCheck: check, log },
    tls,
  );
  if (tls) rotateTlsOnChange(server.server as HttpsServer, opts.tlsCert!, opts.tlsKey!, log);
  log('codec server started', {
    url: server.url,
    uiOrigins: opts.uiOrigin,
    callers: describe,
    currentKeyId: codec.currentKeyId,
  });
  if (!tls && !LOOPBACK.test(parseListenAddress(opts.listen).host))
    log('codec server serves plain HTTP beyond loopback', {
      warning:
        'bearer tokens and plaintext payloads cross the network unencrypted unless a proxy in front ends TLS; give --tls-cert and --tls-key',
    });
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await server.close();
  log('codec server stopped');
}
