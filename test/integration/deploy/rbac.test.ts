// deploy/kubernetes's RBAC on the real API server: the objects of both kustomizations are created
// as they are (the rest server-side dry-run, strictly validated), and the worker runs as the
// ServiceAccount they bind, with a token from the TokenRequest API, exactly as in its Pod. Under
// that identity the preflight proves every gate, Start succeeds and the compensation deletes what
// it created; with any single permission the write gate reviews removed, the preflight names the
// gate it breaks and Start refuses accordingly (docs/contract.md §8). Hold, Release, Open, Watch
// and Stop run under it too, and the authorizer answers it (SelfSubjectAccessReview) yes to every
// access the operations after Start need (test/unit/deploy/rbac.ts) and no to their neighbours.
//
// The identity is the manifests' own ServiceAccount, not the harness's restricted user: that user
// may already read Trainer objects cluster-wide, which would hide a missing `get`.
import type { V1ClusterRole, V1PolicyRule, V1Role } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operationWorkflowId, startWorkflowId } from '../../../src/contract/names.js';
import type { PlannedWrite } from '../../../src/core/objects/planned-write.js';
import { trainJobName } from '../../../src/core/start/names.js';
import { PROBE_JOB_PREFIX } from '../../../src/core/start/probe.js';
import type { ConfigInput } from '../../../src/model/config.js';
import { Kueue, Trainer } from '../../../src/model/constants.js';
import { startRequest } from '../../support/requests.js';
import { configOf, KUEUE, kustomize, PLAIN, type Manifest } from '../../unit/deploy/manifests.js';
import { writeGateAccesses } from '../../unit/deploy/rbac.js';
import { PROVEN, startDispatch, type DispatchHarness } from '../support/dispatch.js';
import { applyKueueSamples } from '../../../dev/harness/samples.js';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy.js';
import { freshNamespace, kubeAccess, type TestNamespace } from '../support/kube.js';
import { expectNothingCreated, expectRefusal, trainerObjectNames } from '../support/refusals.js';
import { runtimeFixtures } from '../support/runtimes.js';
import {
  createAll,
  deleteClusterScoped,
  expectAccessesAsSelf,
  placeIn,
  replace,
  serviceAccountIdentity,
  untilAuthorized,
  type KubeBody,
  type ServiceAccountIdentity,
} from './apply.js';

const RBAC_KINDS = new Set(['ServiceAccount', 'Role', 'RoleBinding', 'ClusterRole', 'ClusterRoleBinding']);
/** Any probe's TrainJob (and copy) name: each probe run has a JobID of its own (src/core/start/probe.ts). */
const PROBE_NAME = new RegExp(`^dj-${PROBE_JOB_PREFIX.toLowerCase()}[0-9a-z]{9}-s1$`);

/** The deployed configuration, with short bounds so that waits and unanswered calls end quickly. */
function deployedConfig(objects: Manifest[]): Omit<ConfigInput, 'namespace'> {
  const {
    namespace: _namespace,
    kubeconfig: _kubeconfig,
    temporal: _temporal,
    ...config
  } = configOf(objects);
  return { ...config, timeouts: { call: '3s', workload: '3s' } };
}

interface Deployed {
  ns: TestNamespace;
  rbac: KubeBody[];
  identity: ServiceAccountIdentity;
  h: DispatchHarness;
}

/**
 * A fresh namespace with the kustomization's RBAC created in it, every other object of it accepted
 * by a strict server-side dry run, and a worker running as its ServiceAccount.
 */
function deploySuite(prefix: string, dir: string, onStarted?: (d: Deployed) => Promise<void>): Deployed {
  const d = {} as Deployed;
  beforeAll(async () => {
    const objects = kustomize(dir);
    d.ns = await freshNamespace(prefix);
    const placed = placeIn(objects, d.ns.name);
    d.rbac = placed.filter((o) => RBAC_KINDS.has(o.kind));
    await createAll(d.rbac);
    await createAll(
      placed.filter((o) => !RBAC_KINDS.has(o.kind)),
      { dryRun: true },
    );
    const account = d.rbac.find((o) => o.kind === 'ServiceAccount')!.metadata.name;
    d.identity = await serviceAccountIdentity(d.ns.name, account);
    d.h = await startDispatch({
      namespace: d.ns.name,
      access: d.identity.access,
      gates: 'none',
      config: deployedConfig(objects),
    });
    await onStarted?.(d);
  });
  afterAll(async () => {
    await d.h?.close();
    if (d.rbac) await deleteClusterScoped(d.rbac);
    await d.ns?.dispose();
  });
  return d;
}

interface Permission {
  /** The Role or ClusterRole that grants it, as created. */
  role: KubeBody;
  group: string;
  resource: string;
  verb: string;
}

/** Every single permission the roles grant: each verb on each resource. */
function permissions(rbac: KubeBody[]): Permission[] {
  return rbac
    .filter((o) => o.kind === 'Role' || o.kind === 'ClusterRole')
    .flatMap((role) =>
      ((role as unknown as V1Role | V1ClusterRole).rules ?? []).flatMap((rule) =>
        (rule.apiGroups ?? []).flatMap((group) =>
          (rule.resources ?? []).flatMap((resource) =>
            rule.verbs.map((verb) => ({ role, group, resource, verb })),
          ),
        ),
      ),
    );
}

/** The role without one permission (a rule left with no verb or resource is dropped). */
function without(permission: Permission): KubeBody {
  const role = structuredClone(permission.role) as KubeBody & { rules: V1PolicyRule[] };
  role.rules = role.rules.flatMap((rule): V1PolicyRule[] => {
    if (
      !rule.apiGroups?.includes(permission.group) ||
      !rule.resources?.includes(permission.resource) ||
      !rule.verbs.includes(permission.verb)
    ) {
      return [rule];
    }
    const others = rule.resources.filter((r) => r !== permission.resource);
    const verbs = rule.verbs.filter((v) => v !== permission.verb);
    return [
      ...(others.length > 0 ? [{ ...rule, resources: others }] : []),
      ...(verbs.length > 0 ? [{ ...rule, resources: [permission.resource], verbs }] : []),
    ];
  });
  return role;
}

/** Runs `check` with one permission removed from the ServiceAccount, and puts it back after. */
async function withoutPermission(
  d: Deployed,
  permission: Permission,
  check: () => Promise<void>,
): Promise<void> {
  const attributes = {
    verb: permission.verb,
    group: permission.group,
    resource: permission.resource,
    ...(permission.role.kind === 'Role' ? { namespace: d.ns.name } : {}),
  };
  await replace(without(permission));
  try {
    await untilAuthorized(d.identity, attributes, false);
    await check();
  } finally {
    await replace(permission.role);
    await untilAuthorized(d.identity, attributes, true);
  }
}

const nameOf = (request: ReturnType<typeof startRequest>) => trainJobName(request.job, request.submission);

/** Waits until no TrainJob or TrainingRuntime whose name matches is left (a copy goes through the garbage collector). */
async function gone(d: Deployed, name: RegExp | string): Promise<void> {
  const names = async () => Object.values(await trainerObjectNames(d.h.kube, d.ns.name)).flat();
  const matches = (n: string) => (typeof name === 'string' ? n === name : name.test(n));
  await expect
    .poll(async () => (await names()).filter(matches), { timeout: 30_000, interval: 250 })
    .toEqual([]);
}

/** Runs the preflight, expects every gate proven, and waits for the probe's objects to be gone. */
async function expectAllProven(d: Deployed): Promise<void> {
  expect(await d.h.worker.preflight()).toEqual({
    reach: true,
    write: true,
    start: true,
    reasons: [],
    checkedAt: expect.any(String),
  });
  await gone(d, PROBE_NAME);
}

/** As the ServiceAccount itself, in the test's namespace (the configuration's), with `default` as another. */
async function expectAccesses(d: Deployed, dir: string): Promise<void> {
  await expectAccessesAsSelf(d.identity, { ...configOf(kustomize(dir)), namespace: d.ns.name }, 'default');
}

describe('deploy/kubernetes (plain mode) as its ServiceAccount on the real API server', () => {
  const d = deploySuite('deploy-rbac', PLAIN);

  it('grants what the preflight needs: reach, write and start proven, the probe stopped', async () => {
    await expectAllProven(d);
    expect(await trainerObjectNames(d.h.kube, d.ns.name)).toEqual({ trainjobs: [], trainingruntimes: [] });
  });

  it('grants what Start needs, from a ClusterTrainingRuntime and from a TrainingRuntime of the namespace', async () => {
    const namespaced = await runtimeFixtures(d.h.kube).namespaced(d.ns.name, 'deployed');
    for (const runtime of [undefined, namespaced]) {
      const request = startRequest(runtime ? { runtime } : {});
      const result = await d.h.client.startTrainJob(request);
      expect(result).toMatchObject({ namespace: d.ns.name, name: nameOf(request), uid: expect.any(String) });
    }
  });

  it('grants what Hold, Release, Open, Watch and Stop need: one TrainJob from Start to Succeeded to deleted', async () => {
    const started = await d.h.client.startTrainJob(startRequest());
    const ref = { namespace: started.namespace, name: started.name, uid: started.uid };
    expect(await d.h.client.hold(ref)).toMatchObject({ ref, phase: 'Held', held: true });
    // A Release of a TrainJob held before it was ever opened leaves it Gated (docs/contract.md §9a); Open runs it.
    expect(await d.h.client.release(ref)).toMatchObject({ ref, phase: 'Gated', held: false });
    expect(await d.h.client.open(ref)).toMatchObject({ ref, phase: 'Running', held: false });
    expect(await d.h.client.watch(ref)).toMatchObject({ ref, phase: 'Succeeded' });
    expect(await d.h.client.stop(ref)).toMatchObject({ ref, phase: 'Absent' });
    await gone(d, ref.name);
  });

  it('answers the ServiceAccount yes to every access the calls need (Watch: list TrainJobs and Pods) and no to each neighbour', async () => {
    await expectAccesses(d, PLAIN);
  });

  describe('grants what the compensation needs', () => {
    let proxy: FaultProxy;
    let g: DispatchHarness;
    beforeAll(async () => {
      proxy = await startFaultProxy();
      g = await startDispatch({
        namespace: d.ns.name,
        access: proxy.accessFor(d.identity.access),
        config: deployedConfig(kustomize(PLAIN)),
        gates: PROVEN,
        requestTimeoutMs: 1_000,
      });
    });
    afterAll(async () => {
      await g?.close();
      await proxy?.close();
    });

    const base = () => `/apis/${Trainer.group}/${Trainer.version}/namespaces/${d.ns.name}`;
    for (const { step, what, method, plural, deletes } of [
      {
        step: 7,
        what: 'owner reference',
        method: 'PATCH',
        plural: Trainer.trainingRuntimePlural,
        deletes: [Trainer.trainJobPlural, Trainer.trainingRuntimePlural],
      },
      {
        step: 8,
        what: 'read-back',
        method: 'GET',
        plural: Trainer.trainJobPlural,
        deletes: [Trainer.trainJobPlural],
      },
    ]) {
      it(`a Start whose ${what} fails (step ${step}) is stopped: the ServiceAccount deletes what it created`, async () => {
        const request = startRequest();
        const name = nameOf(request);
        proxy.inject({ method, path: `${base()}/${plural}/${name}`, times: Infinity, action: 'status-500' });
        const failing = g.client.startTrainJob(request).then(
          () => undefined,
          (error: unknown) => error as { type: string; step: number; ref?: { name: string } },
        );
        // The compensation reads the TrainJob before it deletes it (docs/contract.md §7): reads answer again once it began.
        const workflowId = startWorkflowId(d.ns.name, name, request.attempt);
        await expect.poll(() => g.calls.of(workflowId).some((c) => c.type === 'stopTrainJob'), { timeout: 60_000 }).toBe(true);
        proxy.clear();
        const failure = await failing;
        expect(failure).toMatchObject({ type: 'ErrRejected', step, ref: { namespace: d.ns.name, name } });
        const deleted = proxy.requests.filter((r) => r.method === 'DELETE' && r.path.endsWith(`/${name}`));
        expect(deleted.map((r) => [r.path, r.upstreamStatus])).toEqual(
          deletes.map((p) => [`${base()}/${p}/${name}`, 200]),
        );
        await gone(d, name);
      });
    }
  });

  describe('without any single permission the write gate reviews, the preflight leaves the write gate unproven, naming it, and Start refuses with ErrReadOnly', () => {
    // The cases are the manifests' own rules that the write gate reviews, read when the file loads
    // (the namespace comes later). The others (Watch's lists) the gate does not review: removing
    // one leaves every gate proven, so they are checked by review above.
    const reviewed = writeGateAccesses(configOf(kustomize(PLAIN)));
    const cases = permissions(kustomize(PLAIN))
      .filter((p) => reviewed.some((a) => a.group === p.group && a.resource === p.resource && a.verb === p.verb))
      .map(({ role, resource, verb }) => ({ role: role.kind, resource, verb }));

    it('covers every verb the write gate reviews: create, get, patch and delete on TrainJobs and TrainingRuntimes, get on ClusterTrainingRuntimes', () => {
      expect(cases.map((c) => `${c.role} ${c.verb} ${c.resource}`).sort()).toEqual(
        [
          ...['create', 'get', 'patch', 'delete'].flatMap((verb) => [
            `Role ${verb} trainjobs`,
            `Role ${verb} trainingruntimes`,
          ]),
          'ClusterRole get clustertrainingruntimes',
        ].sort(),
      );
    });

    for (const { role, resource, verb } of cases) {
      it(`${verb} ${resource} (${role})`, async () => {
        const permission = permissions(d.rbac).find((p) => p.resource === resource && p.verb === verb)!;
        const where = permission.role.kind === 'Role' ? `${resource} in namespace ${d.ns.name}` : resource;
        const reasons = [`write: not allowed to ${verb} ${where}`];
        await withoutPermission(d, permission, async () => {
          expect(await d.h.worker.preflight()).toEqual({
            reach: true,
            write: false,
            start: false,
            reasons,
            checkedAt: expect.any(String),
          });
          await expectNothingCreated(d.h.kube, d.ns.name, async () =>
            expectRefusal((await d.h.client.submit(startRequest())).result(), {
              type: 'ErrReadOnly',
              step: 1,
              reasons,
            }),
          );
        });
        // Back in place, every gate is proven again.
        await expectAllProven(d);
      });
    }
  });
});

describe('deploy/kubernetes/kueue as its ServiceAccount, on the real Kueue', () => {
  const d = deploySuite('deploy-kueue', KUEUE, async ({ h }) => {
    await applyKueueSamples(kubeAccess(), [h.config.namespace]);
  });

  it('grants what the preflight and Start need in Kueue mode', async () => {
    await expectAllProven(d);
    const request = startRequest();
    expect(await d.h.client.startTrainJob(request)).toMatchObject({ name: nameOf(request), mode: 'kueue' });
  });

  it("grants what Hold, Release and Stop need in Kueue mode: the held mark and the Workload's spec.active, then the delete", async () => {
    const started = await d.h.client.startTrainJob(startRequest());
    const ref = { namespace: started.namespace, name: started.name, uid: started.uid };
    expect(await d.h.client.hold(ref)).toMatchObject({ ref, phase: 'Held', held: true });
    expect(await d.h.client.release(ref)).toMatchObject({ ref, phase: 'Gated', held: false });
    // Each wrote both, as the ServiceAccount: the Hold the Workload first (patch
    // hold-deactivates-workload-first), the Release the TrainJob first. A write Kueue raced (its
    // resourceVersion test failed) is read and planned again; a 403 would have failed the operation.
    const order = { hold: ['Workload', 'TrainJob'], release: ['TrainJob', 'Workload'] };
    for (const op of ['hold', 'release'] as const) {
      const applied = d.h.calls
        .of(operationWorkflowId(op, ref), 'applyWrite')
        .filter((c) => (c.result as { applied?: boolean } | undefined)?.applied === true)
        .map((c) => (c.input as { write: PlannedWrite }).write.kind);
      expect(applied, op).toEqual(order[op]);
    }
    expect(await d.h.client.stop(ref)).toMatchObject({ ref, phase: 'Absent' });
    await gone(d, ref.name);
  });

  it("answers the ServiceAccount yes to every access the calls need (Workloads, dispatch's AdmissionCheck by name) and no to each neighbour", async () => {
    await expectAccesses(d, KUEUE);
  });

  it("without list on Workloads (which the write gate does not review), the probe's step 9 fails: the start gate is unproven and Start refuses with ErrUnsupported", async () => {
    const permission = permissions(d.rbac).find((p) => p.resource === Kueue.workloadPlural && p.verb === 'list')!;
    expect(permission).toMatchObject({ resource: Kueue.workloadPlural, verb: 'list' });
    const forbidden =
      `workloads.${Kueue.group} is forbidden: User "${d.identity.user}" cannot list resource "workloads" ` +
      `in API group "${Kueue.group}" in the namespace "${d.ns.name}"`;
    await withoutPermission(d, permission, async () => {
      // A watch in step from the tests before keeps answering: the worker lists and watches again.
      d.h.worker.checks?.resync();
      const gates = await d.h.worker.preflight();
      expect(gates).toEqual({
        reach: true,
        write: true,
        start: false,
        reasons: [
          expect.stringMatching(new RegExp(`^start: the Workload of TrainJob ${d.ns.name}/dj-\\S+-s1 was not right within 3s$`)),
          `start: listing Workloads: HTTP 403 Forbidden: ${forbidden}`,
        ],
        checkedAt: expect.any(String),
      });
      const { reasons } = gates;
      await gone(d, PROBE_NAME);
      await expectNothingCreated(d.h.kube, d.ns.name, async () =>
        expectRefusal((await d.h.client.submit(startRequest())).result(), {
          type: 'ErrUnsupported',
          step: 1,
          reasons,
        }),
      );
    });
  });
});
