// kube-controller-manager with the controllers a TrainJob's life needs: the garbage collector and
// the namespace controller (owner references, namespace deletion), the Job controller (JobSet's
// Jobs make pods), the service-account controller (a namespace's `default` account, without which
// no pod is admitted) and node lifecycle (lifts the not-ready taint of a new node once it is Ready).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { LaunchOptions } from './etcd.js';
import { spawnServer, waitFor, type ServerProcess } from './process.js';

/** Logged once the collector watches every resource discovery served when it started. */
const GC_SYNCED = 'all resource monitors have synced';

export async function startKubeControllerManager(
  binary: string,
  options: LaunchOptions & { kubeconfig: string; port: number; certDir: string },
): Promise<ServerProcess> {
  const process = spawnServer({
    name: 'kube-controller-manager',
    command: binary,
    args: [
      `--kubeconfig=${options.kubeconfig}`,
      `--authentication-kubeconfig=${options.kubeconfig}`,
      `--authorization-kubeconfig=${options.kubeconfig}`,
      '--controllers=garbage-collector-controller,namespace-controller,job-controller,serviceaccount-controller,node-lifecycle-controller',
      '--leader-elect=false',
      '--bind-address=127.0.0.1',
      `--secure-port=${options.port}`,
      `--cert-dir=${options.certDir}`,
      '--profiling=false',
    ],
    logFile: join(options.logDir, 'kube-controller-manager.log'),
    lifeline: options.lifeline,
    detach: options.detach,
  });
  await waitFor(
    async () => ((await readFile(process.logFile, 'utf8')).includes(GC_SYNCED) ? true : undefined),
    { what: 'the garbage collector to sync', timeoutMs: 60_000, server: process },
  );
  return process;
}
