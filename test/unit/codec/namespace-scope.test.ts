// Which namespace a codec server request is for, and whether the caller's scope grants it: the pure
// decision the server applies after the caller check (namespace-scope.ts).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  authorizeNamespace,
  describeScope,
  scopeFromClaim,
  scopeOf,
  type NamespaceScope,
} from '../../../src/codec/namespace-scope.js';

const namespaceName = fc.stringMatching(/^[a-z0-9][a-z0-9._-]{0,20}$/);
const scopes: fc.Arbitrary<NamespaceScope> = fc.oneof(
  fc.constant<NamespaceScope>({ every: true }),
  fc.uniqueArray(namespaceName, { maxLength: 5 }).map((names) => scopeOf(names)),
);
/** How the namespace reaches the server: the UI's header, the CLI's path segment, or both agreeing. */
const request = (namespace: string, via: 'header' | 'path' | 'both') => ({
  header: via === 'path' ? undefined : namespace,
  path: via === 'header' ? '/decode' : `/${encodeURIComponent(namespace)}/decode`,
});
const via = fc.constantFrom('header', 'path', 'both') as fc.Arbitrary<'header' | 'path' | 'both'>;

describe('authorizeNamespace', () => {
  it('a request for a namespace is served exactly when the scope lists it or is every namespace; a refusal is 403 naming it', () => {
    fc.assert(
      fc.property(scopes, namespaceName, via, (scope, namespace, how) => {
        const { header, path } = request(namespace, how);
        const decision = authorizeNamespace(scope, header, path);
        const granted = scope.every || scope.namespaces.has(namespace);
        expect(decision.ok).toBe(granted);
        expect(decision.namespace).toBe(namespace);
        if (!decision.ok) {
          expect(decision.status).toBe(403);
          expect(decision.error).toContain(`namespace ${namespace}`);
          expect(decision.reason).toContain(describeScope(scope));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('with a scope, a request naming no namespace is refused (400), whatever the scope', () => {
    fc.assert(
      fc.property(
        scopes,
        fc.constantFrom('/decode', '/encode'),
        fc.constantFrom(undefined, '', '  '),
        (scope, path, header) => {
          const decision = authorizeNamespace(scope, header, path);
          expect(decision).toMatchObject({ ok: false, status: 400, namespace: undefined });
          expect(!decision.ok && decision.error).toMatch(/no namespace: send X-Namespace/);
        },
      ),
    );
  });

  it('a header and a path that name two namespaces are refused (400), even when the scope grants both', () => {
    fc.assert(
      fc.property(namespaceName, namespaceName, (a, b) => {
        fc.pre(a !== b);
        const decision = authorizeNamespace({ every: true }, a, `/${b}/decode`);
        expect(decision).toMatchObject({ ok: false, status: 400 });
        expect(!decision.ok && decision.error).toBe(`X-Namespace ${a} and the path's namespace ${b} differ`);
      }),
    );
  });

  it('without a scope (none configured) every request is served as before, with or without a namespace', () => {
    fc.assert(
      fc.property(fc.option(namespaceName, { nil: undefined }), via, (namespace, how) => {
        const { header, path } =
          namespace === undefined ? { header: undefined, path: '/decode' } : request(namespace, how);
        expect(authorizeNamespace(undefined, header, path)).toEqual({ ok: true, namespace });
      }),
    );
  });

  it('two X-Namespace headers (joined by Node with a comma) are not a namespace name: 400', () => {
    expect(authorizeNamespace({ every: true }, 'a, b', '/decode')).toMatchObject({ ok: false, status: 400 });
  });
});

describe('scopeFromClaim', () => {
  it('an array of names, or a string of names separated by spaces or commas, grants those names; * grants every one', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(namespaceName, { maxLength: 6 }),
        fc.constantFrom(' ', ',', ', '),
        (names, separator) => {
          for (const value of [names, names.join(separator)]) {
            const scope = scopeFromClaim(value);
            expect(scope).toEqual({ every: false, namespaces: new Set(names) });
            expect(scopeFromClaim(Array.isArray(value) ? [...value, '*'] : `${value} *`)).toEqual({
              every: true,
            });
          }
        },
      ),
    );
  });

  it('a claim that is absent or of another type grants no namespace', () => {
    for (const value of [undefined, null, 42, true, { ns: 'a' }, [1, 2]])
      expect(describeScope(scopeFromClaim(value))).toBe('no namespace');
  });
});
