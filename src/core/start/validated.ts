// What validation hands to the later steps: the parsed request with its two required extensions
// already extracted, so that no later step re-reads the extension map.
import type { RuntimeKind, StartRequest } from '../../model/request.js';

export interface RuntimeName {
  kind: RuntimeKind;
  name: string;
}

export interface ValidRequest {
  request: StartRequest;
  /** dispatch/Image ref. */
  image: string;
  /** kubeflow/RuntimeRef. */
  runtime: RuntimeName;
}

/** "<Kind>/<name>", the form of the allow-list and of the source-runtime annotation. */
export function runtimeKey(runtime: RuntimeName): string {
  return `${runtime.kind}/${runtime.name}`;
}

/** Parses "<Kind>/<name>" (already validated by the config schema). */
export function parseRuntimeKey(key: string): RuntimeName {
  const slash = key.indexOf('/');
  return { kind: key.slice(0, slash) as RuntimeKind, name: key.slice(slash + 1) };
}
