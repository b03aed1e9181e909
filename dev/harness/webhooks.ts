// The controllers' own webhook configurations, read from their Go modules (the same manifests and
// kustomize patches their releases apply), pointed at the local webhook servers by URL with the
// harness CA, and registered with the API server. Nothing here is hand-written: the harness only
// replaces each Service reference with a loopback URL and leaves out the webhooks of integrations
// the local Kueue does not enable (pods, batch Jobs, Deployments, ...: they would fail closed).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { kubeCall, type KubeAccess } from './kube-access.js';
import { moduleDir, type CrdSource } from './crd-sources.js';

interface ClientConfig {
  service?: { path?: string };
  url?: string;
  caBundle?: string;
}
interface Webhook {
  name: string;
  clientConfig: ClientConfig;
  rules?: { apiGroups?: string[] }[];
}
interface WebhookConfiguration {
  apiVersion: string;
  kind: 'MutatingWebhookConfiguration' | 'ValidatingWebhookConfiguration';
  metadata: { name: string };
  webhooks: Webhook[];
}
interface JsonPatchOp {
  op: 'replace' | 'add';
  path: string;
  value: unknown;
}

export interface WebhookSource {
  /** Short name of the controller, used to name its configurations. */
  controller: string;
  module: CrdSource;
  /** The webhook manifests, relative to the module root. */
  manifests: string;
  /** Kustomize JSON 6902 patches the release applies, by the kind they target. */
  patches?: { file: string; kind: WebhookConfiguration['kind'] }[];
  /** API groups whose webhooks are registered; others are left out. Default: all. */
  groups?: string[];
}

export const WEBHOOK_SOURCES = {
  jobset: {
    controller: 'jobset',
    module: { server: 'jobset', module: 'sigs.k8s.io/jobset', dir: '' },
    manifests: 'config/components/webhook/manifests.yaml',
    patches: [
      { file: 'config/components/webhook/patches/mutating-patch.yaml', kind: 'MutatingWebhookConfiguration' },
      { file: 'config/components/webhook/patches/validating-patch.yaml', kind: 'ValidatingWebhookConfiguration' },
    ],
  },
  trainer: {
    controller: 'trainer',
    module: { server: 'trainer', module: 'github.com/kubeflow/trainer/v2', dir: '' },
    manifests: 'manifests/base/webhook/manifests.yaml',
    patches: [
      { file: 'manifests/base/webhook/patch_mutating.yaml', kind: 'MutatingWebhookConfiguration' },
      { file: 'manifests/base/webhook/patch_validating.yaml', kind: 'ValidatingWebhookConfiguration' },
    ],
  },
  kueue: {
    controller: 'kueue',
    module: { server: 'kueue', module: 'sigs.k8s.io/kueue', dir: '' },
    manifests: 'config/components/webhook/manifests.yaml',
    groups: ['kueue.x-k8s.io', 'trainer.kubeflow.org'],
  },
} as const satisfies Record<string, WebhookSource>;

/** Applies the `replace` and `add` operations of a JSON patch (all kustomize's patches here use). */
export function applyJsonPatch(target: unknown, ops: JsonPatchOp[]): void {
  for (const op of ops) {
    const keys = op.path.split('/').slice(1).map((k) => k.replaceAll('~1', '/').replaceAll('~0', '~'));
    const last = keys.pop();
    let parent = target as Record<string, unknown>;
    for (const key of keys) parent = parent[key] as Record<string, unknown>;
    if (last === undefined || parent === undefined) throw new Error(`JSON patch path ${op.path} not found`);
    parent[last] = op.value;
  }
}

/** The controller's webhook configurations, ready to register at https://127.0.0.1:<port>. */
export function webhookConfigurations(source: WebhookSource, port: number, caBundle: string): WebhookConfiguration[] {
  const root = moduleDir(source.module).dir;
  const configs = parseAllDocuments(readFileSync(join(root, source.manifests), 'utf8'))
    .map((doc) => doc.toJS() as WebhookConfiguration | null)
    .filter((c): c is WebhookConfiguration => c !== null);
  for (const patch of source.patches ?? []) {
    const ops = parse(readFileSync(join(root, patch.file), 'utf8')) as JsonPatchOp[];
    for (const config of configs.filter((c) => c.kind === patch.kind)) applyJsonPatch(config, ops);
  }
  const wanted = (hook: Webhook) =>
    !source.groups || (hook.rules ?? []).some((rule) => (rule.apiGroups ?? []).some((g) => (source.groups as readonly string[]).includes(g)));
  return configs.map((config) => ({
    ...config,
    metadata: { name: `${source.controller}-${config.kind === 'MutatingWebhookConfiguration' ? 'mutating' : 'validating'}` },
    webhooks: config.webhooks.filter(wanted).map((hook) => ({
      ...hook,
      clientConfig: { url: `https://127.0.0.1:${port}${hook.clientConfig.service?.path ?? ''}`, caBundle },
    })),
  }));
}

const WEBHOOKS_API = '/apis/admissionregistration.k8s.io/v1';

/** Registers (or replaces) the configurations. */
export async function registerWebhooks(admin: KubeAccess, configs: WebhookConfiguration[]): Promise<void> {
  for (const config of configs) {
    const plural = config.kind === 'MutatingWebhookConfiguration' ? 'mutatingwebhookconfigurations' : 'validatingwebhookconfigurations';
    const query = 'fieldManager=dispatch-kubeflow-harness&force=true';
    await kubeCall(admin, 'PATCH', `${WEBHOOKS_API}/${plural}/${config.metadata.name}?${query}`, config, {
      contentType: 'application/apply-patch+yaml',
    });
  }
}

/**
 * The conversion webhook Kueue's release puts on some of its CRDs (config/components/crd/patches/
 * webhook_in_*.yaml), pointed at the local Kueue: the CRD names it applies to and the stanza.
 */
export function kueueConversion(port: number, caBundle: string): { crds: string[]; conversion: unknown } {
  const root = moduleDir(WEBHOOK_SOURCES.kueue.module).dir;
  const kustomization = parse(readFileSync(join(root, 'config/components/crd/kustomization.yaml'), 'utf8')) as { patches?: { path: string }[] };
  const crds = (kustomization.patches ?? [])
    .map((p) => parse(readFileSync(join(root, 'config/components/crd', p.path), 'utf8')) as { metadata: { name: string } })
    .map((crd) => crd.metadata.name);
  return {
    crds,
    conversion: {
      strategy: 'Webhook',
      webhook: { clientConfig: { url: `https://127.0.0.1:${port}/convert`, caBundle }, conversionReviewVersions: ['v1'] },
    },
  };
}
