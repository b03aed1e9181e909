// `dispatch-kubeflow codec-server`: the codec server with the keys of DISPATCH_CODEC_KEYS, until
// SIGINT or SIGTERM.
import { log } from '../worker/log.js';
import { startCodecServer } from './codec-server.js';
import { codecFromEnv, CODEC_KEYS_ENV } from './index.js';

export async function runCodecServer(
  opts: { listen: string; uiOrigin: string[] },
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  const codec = codecFromEnv(env);
  if (!codec) throw new Error(`${CODEC_KEYS_ENV} is not set: the codec server has no key to decode with`);
  const server = await startCodecServer(opts.listen, { codecs: [codec], origins: opts.uiOrigin, log });
  log('codec server started', {
    url: server.url,
    uiOrigins: opts.uiOrigin,
    currentKeyId: codec.currentKeyId,
  });
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await server.close();
  log('codec server stopped');
}
