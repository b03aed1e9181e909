// etcd for the local API server: one member on loopback, its own data dir, no fsync (test data).
import { answers200 } from './health.js';
import { join } from 'node:path';
import { spawnServer, waitFor, type ServerProcess, type SpawnOptions } from './process.js';

export type LaunchOptions = Pick<SpawnOptions, 'lifeline' | 'detach'> & { logDir: string };

export interface Etcd {
  process: ServerProcess;
  /** Client URL, for --etcd-servers. */
  url: string;
}

export async function startEtcd(
  binary: string,
  options: LaunchOptions & { dataDir: string; clientPort: number; peerPort: number },
): Promise<Etcd> {
  const url = `http://127.0.0.1:${options.clientPort}`;
  const peer = `http://127.0.0.1:${options.peerPort}`;
  const process = spawnServer({
    name: 'etcd',
    command: binary,
    args: [
      '--name=dispatch',
      `--data-dir=${options.dataDir}`,
      `--listen-client-urls=${url}`,
      `--advertise-client-urls=${url}`,
      `--listen-peer-urls=${peer}`,
      `--initial-advertise-peer-urls=${peer}`,
      `--initial-cluster=dispatch=${peer}`,
      '--unsafe-no-fsync',
      '--log-level=warn',
    ],
    logFile: join(options.logDir, 'etcd.log'),
    lifeline: options.lifeline,
    detach: options.detach,
  });
  await waitFor(() => answers200(`${url}/readyz`), { what: `etcd at ${url}`, timeoutMs: 30_000, server: process });
  return { process, url };
}
