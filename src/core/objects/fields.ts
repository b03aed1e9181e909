// Reading a Kubernetes object's unchecked parts (spec, status) without trusting their shape.
import type { KubeObject } from '../../model/kube.js';

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The object's spec, or an empty one when it has none (or not an object). */
export const specOf = (object: KubeObject | undefined): Record<string, unknown> =>
  isRecord(object?.spec) ? object.spec : {};
