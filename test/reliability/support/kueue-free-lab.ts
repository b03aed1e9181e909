// A reliability lab on a cluster of its own without the real Kueue, for the scenarios the Kueue
// stand-in (FakeKueue) serves: the real Kueue would make the Workload the stand-in is told to make
// late or not at all. Registered like reliabilityLab; the cluster stops after the lab's audit.
import { afterAll, beforeAll } from 'vitest';
import type { LocalCluster } from '../../../dev/harness/cluster.js';
import { startKueueFreeCluster } from '../../integration/support/kueue-free-cluster.js';
import { reliabilityLab, type Lab } from './lab.js';

export function kueueFreeLab(prefix: string): Lab {
  let cluster: LocalCluster | undefined;
  beforeAll(async () => {
    cluster = await startKueueFreeCluster(prefix);
  }, 300_000);
  // Hooks run as a stack: the lab's afterAll (its audit) runs before this file's cluster stops.
  afterAll(async () => {
    await cluster?.stop();
  });
  return reliabilityLab(prefix, { cluster: () => cluster!.info });
}
