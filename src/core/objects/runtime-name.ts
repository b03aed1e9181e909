// A Trainer runtime's name as the request's kubeflow/RuntimeRef gives it, and its "<Kind>/<name>" key
// (the allow-list's and the source-runtime annotation's form): shared by Start's rules, the
// Kubernetes layer's reads and the CLI.
import type { RuntimeKind } from '../../model/request.js';

export interface RuntimeName {
  kind: RuntimeKind;
  name: string;
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
