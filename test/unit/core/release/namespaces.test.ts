// Release isolation's pure rules (src/core/release/namespaces.ts, docs/contract.md §10): a workflow
// whose id names another namespace is refused ErrRejected naming both, one that names this worker's
// is not; the queue's pollers tell which other namespaces share it.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  capabilitiesWorkflowId,
  namespaceOfWorkerIdentity,
  namespaceOfWorkflowId,
  OPERATIONS,
  operationWorkflowId,
  probeWorkflowId,
  startWorkflowId,
  workerIdentity,
} from '../../../../src/contract/names.js';
import { foreignNamespaceRefusal, queueSharing, sharingReason } from '../../../../src/core/release/namespaces.js';

const label = fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,20}[a-z0-9])?$/);
const twoNamespaces = fc.tuple(label, label).filter(([a, b]) => a !== b);

/** Every kind of id a dispatch client makes, for a namespace. */
const workflowIds = (namespace: string, name: string): { id: string; start: boolean }[] => [
  { id: startWorkflowId(namespace, name, 3), start: true },
  { id: probeWorkflowId(namespace), start: false },
  { id: capabilitiesWorkflowId(namespace, 'u1'), start: false },
  ...OPERATIONS.map((op) => ({ id: operationWorkflowId(op, { namespace, name, uid: 'uid-1' }), start: false })),
];

describe('namespaceOfWorkflowId', () => {
  it('reads the namespace of every kind of dispatch workflow id', () => {
    fc.assert(
      fc.property(label, label, (namespace, name) => {
        for (const { id } of workflowIds(namespace, name)) expect(namespaceOfWorkflowId(id)?.namespace).toBe(namespace);
      }),
    );
  });

  it('reads none from an id no dispatch client makes', () => {
    for (const id of ['my-workflow', 'start', 'start/', 'other/ns/name/uid', '/ns/name']) expect(namespaceOfWorkflowId(id)).toBeUndefined();
  });
});

describe('foreignNamespaceRefusal', () => {
  it('refuses every kind of workflow of another namespace ErrRejected, naming both namespaces and the queue; a Start at step 1', () => {
    fc.assert(
      fc.property(twoNamespaces, label, label, ([named, worker], name, taskQueue) => {
        for (const { id, start } of workflowIds(named, name)) {
          const refusal = foreignNamespaceRefusal(id, { namespace: worker, taskQueue });
          expect(refusal?.type).toBe('ErrRejected');
          expect(refusal?.step).toBe(start ? 1 : 0);
          const reason = refusal?.reasons.join('\n') ?? '';
          expect(reason).toContain(`names namespace ${named}`);
          expect(reason).toContain(`acts in namespace ${worker}`);
          expect(reason).toContain(`task queue ${taskQueue}`);
        }
      }),
    );
  });

  it("lets through every workflow of the worker's own namespace, and ids that name none", () => {
    fc.assert(
      fc.property(label, label, (namespace, name) => {
        for (const { id } of workflowIds(namespace, name)) expect(foreignNamespaceRefusal(id, { namespace, taskQueue: 'q' })).toBeUndefined();
        expect(foreignNamespaceRefusal(`some-test-${name}`, { namespace, taskQueue: 'q' })).toBeUndefined();
      }),
    );
  });
});

describe('queueSharing', () => {
  it("names the other namespaces of the queue's dispatch pollers, sorted and once each, and sets other pollers apart", () => {
    fc.assert(
      fc.property(label, fc.array(label, { maxLength: 6 }), fc.array(fc.string({ maxLength: 12 }), { maxLength: 3 }), (mine, others, strangers) => {
        const identities = [
          workerIdentity(mine, '1@host-a'),
          ...others.map((namespace, i) => workerIdentity(namespace, `${i}@host-b`)),
          ...strangers.map((s) => `plain-${s}`),
        ];
        const sharing = queueSharing(identities, { namespace: mine, taskQueue: 'q' });
        expect(sharing.otherNamespaces).toEqual([...new Set(others.filter((n) => n !== mine))].sort());
        expect(sharing.unidentifiedPollers).toEqual([...new Set(strangers.map((s) => `plain-${s}`))].sort());
        const reason = sharingReason(sharing, { namespace: mine, taskQueue: 'q' });
        if (sharing.otherNamespaces.length === 0) expect(reason).toBeUndefined();
        else for (const namespace of sharing.otherNamespaces) expect(reason).toContain(namespace);
      }),
    );
  });

  it("reads a worker identity's namespace back", () => {
    fc.assert(
      fc.property(label, (namespace) => {
        expect(namespaceOfWorkerIdentity(workerIdentity(namespace, '42@pod-7'))).toBe(namespace);
      }),
    );
    expect(namespaceOfWorkerIdentity('42@pod-7')).toBeUndefined();
  });
});
