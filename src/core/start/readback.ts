// Step 8 of Start: read-back compares what Start wrote with what the API server holds
// (docs/contract.md §4a). Admission webhooks legitimately add to a TrainJob, so it checks what
// dispatch wrote, not byte equality, and names every field that differs.
import type { Mode } from '../../model/config.js';
import { Dispatch, Kueue, Trainer } from '../../model/constants.js';
import type { RuntimePatch, TrainJob } from '../../model/kube.js';

const MAX_SHOWN = 80;

function show(value: unknown): string {
  if (value === undefined) return 'absent';
  const text = JSON.stringify(value);
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN - 1)}…` : text;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** `labels["a/b"]`, `env[3]`, `trainer.image`: a field path as kubectl users write it. */
function child(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

/**
 * Every leaf where `read` differs from `written`, key order ignored: a key missing, a key added,
 * an array of another length, or a different value.
 */
export function diffJson(path: string, written: unknown, read: unknown): string[] {
  if (Array.isArray(written) && Array.isArray(read)) {
    if (written.length !== read.length) {
      return [`${path}: wrote ${written.length} items, read ${read.length}`];
    }
    return written.flatMap((item, i) => diffJson(child(path, i), item, read[i]));
  }
  if (isPlainObject(written) && isPlainObject(read)) {
    const keys = [...new Set([...Object.keys(written), ...Object.keys(read)])];
    return keys.flatMap((key) => diffJson(child(path, key), written[key], read[key]));
  }
  if (written === read) return [];
  return [`${path}: wrote ${show(written)}, read ${show(read)}`];
}

/** Every key of `written` present in `read` with the same value; keys only in `read` are allowed. */
function diffSubset(
  path: string,
  written: Record<string, string> | undefined,
  read: Record<string, string> | undefined,
) {
  return Object.entries(written ?? {}).flatMap(([key, value]) =>
    read?.[key] === value ? [] : [`${child(path, key)}: wrote ${show(value)}, read ${show(read?.[key])}`],
  );
}

/** The patch entry without the server-set timestamp. */
function withoutTime(patch: RuntimePatch): Record<string, unknown> {
  const { time: _time, ...rest } = patch;
  return rest;
}

function diffOurPatch(written: TrainJob, read: TrainJob): string[] {
  const path = `spec.runtimePatches[manager=${Dispatch.patchManager}]`;
  const ours = (patches: unknown): RuntimePatch | undefined =>
    (Array.isArray(patches) ? (patches as RuntimePatch[]) : []).find(
      (p) => p?.manager === Dispatch.patchManager,
    );
  const wrote = ours(written.spec.runtimePatches);
  const got = ours(read.spec?.runtimePatches);
  if (wrote === undefined) return [];
  if (got === undefined) return [`${path}: missing`];
  return diffJson(path, withoutTime(wrote), withoutTime(got));
}

/**
 * What read-back depends on in the configuration: the mode, and whether Kueue's MultiKueue is
 * configured (kueue.multiKueue). A mode alone is a configuration without MultiKueue.
 */
export type ReadBackConfig = Mode | { mode: Mode; kueue?: { multiKueue?: unknown } | undefined };

/**
 * The values of spec.managedBy read-back accepts besides absence: Trainer's controller; with
 * MultiKueue configured (Kueue mode only), Kueue's MultiKueue too, which its webhook sets on a
 * job it dispatches to a worker cluster (docs/contract.md §11), and nothing else.
 */
export function acceptedManagedBy(config: ReadBackConfig): string[] {
  const multiKueue = typeof config !== 'string' && config.mode === 'kueue' && config.kueue?.multiKueue !== undefined;
  return multiKueue ? [Trainer.controllerManagedBy, Kueue.multiKueueManagedBy] : [Trainer.controllerManagedBy];
}

/** The fields of `read` that differ from what Start wrote; empty when read-back passes. */
export function compareReadBack(written: TrainJob, read: TrainJob, config: ReadBackConfig): string[] {
  const mode = typeof config === 'string' ? config : config.mode;
  const spec = read.spec ?? ({} as Partial<TrainJob['spec']>);
  const reasons = [
    ...diffSubset('metadata.labels', written.metadata.labels, read.metadata?.labels),
    ...diffSubset('metadata.annotations', written.metadata.annotations, read.metadata?.annotations),
    ...diffJson('spec.runtimeRef', written.spec.runtimeRef, spec.runtimeRef),
    ...diffJson('spec.trainer', written.spec.trainer, spec.trainer),
    ...diffJson('spec.activeDeadlineSeconds', written.spec.activeDeadlineSeconds, spec.activeDeadlineSeconds),
    ...diffOurPatch(written, read),
  ];
  const managers = acceptedManagedBy(config);
  if (spec.managedBy !== undefined && !managers.includes(spec.managedBy)) {
    reasons.push(`spec.managedBy: ${show(spec.managedBy)}, not absent or ${managers.map(show).join(' or ')}`);
  }
  // In Kueue mode suspend is Kueue's: its webhook sets it, and the adapter never writes it.
  if (mode === 'plain' && spec.suspend !== true) {
    reasons.push(`spec.suspend: wrote true, read ${show(spec.suspend)}`);
  }
  return reasons;
}
