// kube-scheduler: binds the pods of TrainJobs to the simulated (KWOK) nodes. One kubeconfig for
// the client, delegated authentication and authorization; leader election off.
import { request } from 'node:https';
import { join } from 'node:path';
import type { LaunchOptions } from './etcd.js';
import { spawnServer, waitFor, type ServerProcess } from './process.js';

/** Whether an HTTPS endpoint with a self-signed certificate answers 200 (health checks only). */
export const httpsHealthy = (url: string) =>
  new Promise<true | undefined>((resolve, reject) => {
    request(url, { rejectUnauthorized: false, timeout: 2_000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200 ? true : undefined);
    })
      .once('error', reject)
      .end();
  });

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
  await waitFor(() => httpsHealthy(`https://127.0.0.1:${options.port}/readyz`), {
    what: 'kube-scheduler /readyz',
    timeoutMs: 60_000,
    intervalMs: 200,
    server: process,
  });
  return process;
}
