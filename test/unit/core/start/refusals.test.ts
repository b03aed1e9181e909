import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../../src/config/load-config.js';
import { allowListRefusal, gateRefusal } from '../../../../src/core/start/refusals.js';
import type { BackendGates } from '../../../../src/model/results.js';

const gates = (over: Partial<BackendGates>): BackendGates => ({
  reach: true,
  write: true,
  start: true,
  reasons: [],
  checkedAt: '2026-01-01T00:00:00.000Z',
  ...over,
});

describe('docs/start.md step 1: refusing a backend whose gates are not proven (docs/contract.md §8)', () => {
  it('all gates proven: no refusal', () => {
    expect(gateRefusal(gates({}))).toBeUndefined();
  });

  it('no preflight yet: ErrUnreachable naming reach', () => {
    expect(gateRefusal(undefined)).toMatchObject({ type: 'ErrUnreachable', step: 1, reasons: ['reach: not proven (no preflight has completed yet)'] });
  });

  it('a closed backend is ErrUnreachable, a read-only one ErrReadOnly, an observe-only one ErrUnsupported, each with its own reasons', () => {
    const reasons = ['reach: connection refused', 'write: not allowed to create trainjobs in namespace ml', 'start: probe refused'];
    expect(gateRefusal(gates({ reach: false, write: false, start: false, reasons }))).toMatchObject({
      type: 'ErrUnreachable',
      reasons: ['reach: connection refused'],
    });
    expect(gateRefusal(gates({ write: false, start: false, reasons }))).toMatchObject({
      type: 'ErrReadOnly',
      reasons: ['write: not allowed to create trainjobs in namespace ml'],
    });
    expect(gateRefusal(gates({ start: false, reasons }))).toMatchObject({ type: 'ErrUnsupported', reasons: ['start: probe refused'] });
  });

  it('a start gate left unknown by a probe without a definite answer is the retryable ErrUnreachable naming it, not ErrUnsupported', () => {
    const reasons = ['start: waiting for TrainJob ml/dj-x-s1: no answer from the Kubernetes API (HTTP 502)'];
    expect(gateRefusal(gates({ start: false, startUnknown: true, reasons }))).toMatchObject({ type: 'ErrUnreachable', step: 1, reasons });
    // Only a definite refusal of the probe makes it unproven.
    expect(gateRefusal(gates({ start: false, startUnknown: false, reasons }))).toMatchObject({ type: 'ErrUnsupported', reasons });
    // The gates before it still come first.
    expect(gateRefusal(gates({ write: false, start: false, startUnknown: true }))).toMatchObject({ type: 'ErrReadOnly' });
  });

  it('a write gate left unknown by an unanswered access review is the retryable ErrUnreachable naming it, not ErrReadOnly', () => {
    const reasons = ['write: no answer: checking access: no answer from the Kubernetes API (ECONNREFUSED)'];
    expect(gateRefusal(gates({ write: false, writeUnknown: true, start: false, reasons }))).toMatchObject({ type: 'ErrUnreachable', step: 1, reasons });
    expect(gateRefusal(gates({ write: false, writeUnknown: false, start: false, reasons }))).toMatchObject({ type: 'ErrReadOnly', reasons });
    // The reach gate still comes first.
    expect(gateRefusal(gates({ reach: false, write: false, writeUnknown: true }))?.reasons).toEqual(['reach: not proven']);
  });

  it('an unproven gate with no recorded reason is still named', () => {
    expect(gateRefusal(gates({ write: false }))?.reasons).toEqual(['write: not proven']);
  });
});

describe('docs/runtime-rules.md, allow-list row: a runtime outside `runtimes` is refused before it is read', () => {
  it('names the runtime and the list; an empty list allows any', () => {
    const config = parseConfig({ namespace: 'ml', runtimes: ['ClusterTrainingRuntime/a'] });
    expect(allowListRefusal({ kind: 'ClusterTrainingRuntime', name: 'a' }, config)).toBeUndefined();
    expect(allowListRefusal({ kind: 'TrainingRuntime', name: 'a' }, config)).toMatchObject({
      type: 'ErrUnsupported',
      step: 2,
      reasons: ['runtime TrainingRuntime/a is not in the configured runtimes (ClusterTrainingRuntime/a)'],
    });
    expect(allowListRefusal({ kind: 'TrainingRuntime', name: 'x' }, parseConfig({ namespace: 'ml' }))).toBeUndefined();
  });
});
