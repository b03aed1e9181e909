// KWOK simulates the cluster's nodes and the lifecycle of their pods without a kubelet: nodes
// become Ready and keep a heartbeat; a scheduled pod becomes Running, and a Job's pod Succeeds.
// The stages are the ones KWOK's module ships (kustomize/stage/), read from the Go module cache.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { moduleDir } from './crd-sources.js';
import type { LaunchOptions } from './etcd.js';
import { answers200 } from './health.js';
import { kubeCall, kubeRequest, type KubeAccess } from './kube-access.js';
import { spawnServer, waitFor, type ServerProcess } from './process.js';

/**
 * The stage folders of KWOK's module the local cluster uses. `pod/chaos` fails a pod whose labels
 * ask for it, with the exit code its annotations give (tests of a failing job); it changes nothing
 * for other pods.
 */
export const KWOK_STAGES = [
  'kustomize/stage/node/fast',
  'kustomize/stage/node/heartbeat',
  'kustomize/stage/pod/fast',
  'kustomize/stage/pod/chaos',
];

/** The harness's own stages (a pod that runs a while before it completes), by the same rules. */
const HARNESS_STAGES_DIR = fileURLToPath(new URL('./kwok-stages/', import.meta.url));

const KWOK_MODULE = { server: 'kwok', module: 'sigs.k8s.io/kwok', dir: '' };

export function kwokStageFiles(): string[] {
  const root = moduleDir(KWOK_MODULE).dir;
  return KWOK_STAGES.flatMap((dir) =>
    readdirSync(join(root, dir))
      .filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml')
      .map((f) => join(root, dir, f)),
  ).concat(
    readdirSync(HARNESS_STAGES_DIR)
      .filter((f) => f.endsWith('.yaml'))
      .map((f) => join(HARNESS_STAGES_DIR, f)),
  );
}

/** What each simulated node offers: room for a few multi-GPU jobs. */
export const KWOK_NODE_CAPACITY = { cpu: '64', memory: '512Gi', pods: '110', 'nvidia.com/gpu': '8' } as const;

export const kwokNodeName = (i: number) => `kwok-node-${i}`;

export async function startKwok(
  binary: string,
  options: LaunchOptions & { kubeconfig: string; port: number },
): Promise<ServerProcess> {
  const process = spawnServer({
    name: 'kwok',
    command: binary,
    args: [
      `--kubeconfig=${options.kubeconfig}`,
      '--manage-all-nodes=true',
      `--server-address=127.0.0.1:${options.port}`,
      ...kwokStageFiles().map((file) => `--config=${file}`),
    ],
    logFile: join(options.logDir, 'kwok.log'),
    lifeline: options.lifeline,
    detach: options.detach,
  });
  await waitFor(() => answers200(`http://127.0.0.1:${options.port}/healthz`), {
    what: 'kwok /healthz',
    timeoutMs: 60_000,
    intervalMs: 200,
    server: process,
  });
  return process;
}

/** Creates `count` simulated nodes and waits until each is Ready (KWOK's node stages). */
export async function addKwokNodes(admin: KubeAccess, count: number, timeoutMs = 60_000): Promise<string[]> {
  const names = Array.from({ length: count }, (_, i) => kwokNodeName(i));
  for (const name of names) {
    const res = await kubeRequest(admin, 'POST', '/api/v1/nodes', {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name, labels: { type: 'kwok', 'kubernetes.io/hostname': name }, annotations: { 'kwok.x-k8s.io/node': 'fake' } },
      status: { capacity: KWOK_NODE_CAPACITY, allocatable: KWOK_NODE_CAPACITY },
    });
    if (res.status !== 201 && res.status !== 409) throw new Error(`creating node ${name}: HTTP ${res.status}: ${res.body.slice(0, 300)}`);
  }
  await waitFor(
    async () => {
      const list = (await kubeCall(admin, 'GET', '/api/v1/nodes')) as {
        items: { metadata: { name: string }; spec?: { taints?: unknown[] }; status?: { conditions?: { type: string; status: string }[] } }[];
      };
      const ready = list.items.filter(
        (n) => names.includes(n.metadata.name) && n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') && !(n.spec?.taints ?? []).length,
      );
      return ready.length === names.length ? true : undefined;
    },
    { what: `${count} KWOK nodes Ready and untainted`, timeoutMs, intervalMs: 250 },
  );
  return names;
}
