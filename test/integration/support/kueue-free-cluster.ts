// A cluster of a test file's own without the real Kueue (its CRDs only), for the Kueue stand-in:
// the real Kueue makes a Workload for every TrainJob that names a queue, so a stand-in that must
// make none, a late one or a wrong one cannot share a cluster with it. The sample runtimes are applied.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serverBinaries } from '../../../dev/harness/binaries.js';
import { adminAccess, startCluster, type LocalCluster } from '../../../dev/harness/cluster.js';
import { applySamples } from '../../../dev/harness/samples.js';
import { crdDirs } from '../../../dev/harness/stack.js';
import { stackInfo } from './context.js';

export async function startKueueFreeCluster(name: string): Promise<LocalCluster> {
  const stateDir = mkdtempSync(join(tmpdir(), `dispatch-kubeflow-${process.pid}-${name}-`));
  const cluster = await startCluster({
    binaries: await serverBinaries({ build: false }),
    stateDir,
    logDir: join(stackInfo().logDir, name),
    namespace: 'dispatch',
    crdDirs: crdDirs(),
    kueue: false,
    nodes: 1,
    lifeline: process.pid,
  });
  try {
    await applySamples(adminAccess(cluster.info));
  } catch (err) {
    await cluster.stop();
    throw err;
  }
  return {
    ...cluster,
    stop: async () => {
      await cluster.stop();
      rmSync(stateDir, { recursive: true, force: true });
    },
  };
}
