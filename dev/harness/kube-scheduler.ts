// kube-scheduler: binds the pods of TrainJobs to the simulated (KWOK) nodes. One kubeconfig for
// the client, delegated authentication and authorization; leader election off.
import { join } from 'node:path';
import type { LaunchOptions } from './etcd.js';
import { answers200 } from './health.js';
import { spawnServer, waitFor, type ServerProcess } from './process.js';

export async function startKubeScheduler(
  binary: string,
  options: LaunchOptions & { kubeconfig: string; port: number; certDir: string },
): Promise<ServerProcess> {
  const process = spawnServer({
    name: 'kube-scheduler',
    command: binary,
    args: [
      `--kubeconfig=${options.kubeconfig}`,
      `--authentication-kubeconfig=${options.kubeconfig}`,
      `--authorization-kubeconfig=${options.kubeconfig}`,
      '--leader-elect=false',
      '--bind-address=127.0.0.1',
      `--secure-port=${options.port}`,
      `--cert-dir=${options.certDir}`,
      '--profiling=false',
    ],
    logFile: join(options.logDir, 'kube-scheduler.log'),
    lifeline: options.lifeline,
    detach: options.detach,
  });
  await waitFor(() => answers200(`https://127.0.0.1:${options.port}/readyz`), {
    what: 'kube-scheduler /readyz',
    timeoutMs: 60_000,
    intervalMs: 200,
    server: process,
  });
  return process;
}
