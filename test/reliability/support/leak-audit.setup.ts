// The reliability project's last word: after every file has run (this teardown runs before the
// shared stack's, which was set up first), no object labelled app.kubernetes.io/managed-by=dispatch
// may remain anywhere on the shared cluster. Each file removes what it meant to leave once its own
// audit has passed (LeakLedger), so whatever is found here is a leak. Files with a cluster of their
// own audit it themselves before stopping it.
import type { TestProject } from 'vitest/node';
import { createKubeClients } from '../../../src/kube/clients.js';
import { adminAccess } from '../../../dev/harness/cluster.js';
import { kubeConfigFor } from '../../../dev/harness/kube-access.js';
import '../../integration/support/context.js';
import { describeObject, managedObjects, unexpectedObjects } from './leak-audit.js';

export default function setup(project: TestProject): () => Promise<void> {
  return async () => {
    const { kube: info } = project.getProvidedContext().stack;
    const kube = createKubeClients(kubeConfigFor(adminAccess(info)));
    const seen = (await managedObjects(kube)).length;
    const left = await unexpectedObjects(kube, [], { settleMs: 60_000 });
    console.log(
      `[reliability] leak audit of the shared cluster: ${seen} object(s) labelled managed-by=dispatch at the end, ${left.length} left after 60 s`,
    );
    if (left.length > 0)
      throw new Error(
        `leak audit: ${left.length} object(s) labelled managed-by=dispatch remain: ${left.map(describeObject).join('; ')}`,
      );
  };
}
