// `dispatch-kubeflow codec-server`: the codec server with the keys of DISPATCH_CODEC_KEYS, until
// SIGINT or SIGTERM, with the options of command-options.ts. Its certificate (observability/
// tls-files.ts), token file and JWKS file (reloading-files.ts) are read again when they change: no
// restart to rotate.
import { log } from '../observability/log.js';
import { parseListenAddress } from '../observability/listen.js';
import { tlsPathsFromFlags } from '../observability/tls-files.js';
import { callerCheckFrom } from './caller-check.js';
import type { CodecServerCommandOptions } from './command-options.js';
import { startCodecServer } from './codec-server.js';
import { codecFromEnv, CODEC_KEYS_ENV } from './index.js';

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
  // Files, re-read when they change: a renewed certificate is served without a restart.
  const tls = tlsPathsFromFlags(opts);
  const server = await startCodecServer(
    opts.listen,
    { codecs: [codec], origins: opts.uiOrigin, callerCheck: check, log },
    tls,
  );
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
