// Which Temporal namespaces a caller of the codec server may decode, and whether one request is
// within them. The codec server holds the keys of every namespace it serves; without this, anyone
// who may read one namespace's payloads may read them all. The scope comes from the caller's token:
// a JWT claim (an array of names, or a string of names as OAuth's `scope` is), or the names written
// after a static token in the token file. `*` is every namespace.
//
// The namespace a request is for is the X-Namespace header (the Temporal UI and CLI send it) or the
// path's first segment (/<namespace>/decode, the CLI's --codec-endpoint templating); when both are
// given they must agree. With a scope configured, a request naming no namespace is refused: it
// could be for any of them.

/** Every namespace, in a claim or in the token file. */
export const EVERY_NAMESPACE = '*';

export type NamespaceScope = { every: true } | { every: false; namespaces: ReadonlySet<string> };

/** A namespace name as the scope and the request may spell it: no space, comma or slash. */
const NAMESPACE = /^[^\s,/]+$/;

/** The scope the names grant: `*` among them is every namespace; names that cannot be one are skipped. */
export function scopeOf(names: Iterable<string>): NamespaceScope {
  const list = [...names].map((name) => name.trim()).filter((name) => NAMESPACE.test(name));
  return list.includes(EVERY_NAMESPACE) ? { every: true } : { every: false, namespaces: new Set(list) };
}

/** The scope a JWT claim's value grants: an array of names, or one string of names (space or comma separated); anything else, none. */
export function scopeFromClaim(value: unknown): NamespaceScope {
  if (typeof value === 'string') return scopeOf(value.split(/[\s,]+/));
  if (Array.isArray(value)) return scopeOf(value.filter((v): v is string => typeof v === 'string'));
  return scopeOf([]);
}

/** For the log: `every namespace`, `namespaces a, b` or `no namespace`. */
export function describeScope(scope: NamespaceScope): string {
  if (scope.every) return 'every namespace';
  return scope.namespaces.size === 0
    ? 'no namespace'
    : `namespaces ${[...scope.namespaces].sort().join(', ')}`;
}

export const grants = (scope: NamespaceScope, namespace: string): boolean =>
  scope.every || scope.namespaces.has(namespace);

export type NamespaceDecision =
  | { ok: true; namespace: string | undefined }
  | { ok: false; status: 400 | 403; namespace: string | undefined; error: string; reason: string };

const PATH_NAMESPACE = /^\/([^/]+)\/(?:encode|decode)$/;

function pathNamespace(path: string): string | undefined {
  const segment = PATH_NAMESPACE.exec(path)?.[1];
  if (segment === undefined) return undefined;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * Whether a caller whose token grants `scope` may have this request served; `scope` undefined: no
 * scope is configured, and every caller the check let through is served, as before.
 */
export function authorizeNamespace(
  scope: NamespaceScope | undefined,
  header: string | string[] | undefined,
  path: string,
): NamespaceDecision {
  const fromHeader = Array.isArray(header) ? header.join(', ') : header?.trim() || undefined;
  const fromPath = pathNamespace(path);
  const namespace = fromHeader ?? fromPath;
  if (scope === undefined) return { ok: true, namespace };
  const refuse = (status: 400 | 403, error: string, reason = error): NamespaceDecision => ({
    ok: false,
    status,
    namespace,
    error,
    reason,
  });
  if (namespace === undefined)
    return refuse(
      400,
      'no namespace: send X-Namespace (the Temporal UI and CLI do) or call /<namespace>/encode and /<namespace>/decode',
    );
  for (const name of [fromHeader, fromPath])
    if (name !== undefined && !NAMESPACE.test(name))
      return refuse(400, `namespace ${JSON.stringify(name)} is not a namespace name`);
  if (fromHeader !== undefined && fromPath !== undefined && fromHeader !== fromPath)
    return refuse(400, `X-Namespace ${fromHeader} and the path's namespace ${fromPath} differ`);
  if (!grants(scope, namespace))
    return refuse(
      403,
      `this token does not grant namespace ${namespace}`,
      `namespace ${namespace} is not in the token's scope (${describeScope(scope)})`,
    );
  return { ok: true, namespace };
}
