// kueue.multiKueue (docs/multikueue.md, Configuration): the worker clusters, each named once and
// reached once, Kueue mode only, every error named at once.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../../src/model/config.js';
import { issuesToReasons } from '../../../src/model/issues.js';

function reasons(input: unknown): string[] {
  const parsed = ConfigSchema.safeParse(input, { reportInput: true });
  return parsed.success ? [] : issuesToReasons(parsed.error.issues);
}

const kueue = (multiKueue: unknown, mode = 'kueue', kubeconfig = '') => ({
  namespace: 'ml',
  mode,
  kubeconfig,
  kueue: { queue: 'q', admissionCheck: 'dispatch', multiKueue },
});

/** Worker clusters drawn from few names and paths, so that duplicates are common. */
const clusterArb = fc.record({ name: fc.constantFrom('w1', 'w2', 'w3', 'worker.east'), kubeconfig: fc.constantFrom('/k/1', '/k/2', '/k/3', '/k/4') });

/** The indexes whose `field` repeats an earlier entry's. */
const repeats = (clusters: { name: string; kubeconfig: string }[], field: 'name' | 'kubeconfig') =>
  clusters.flatMap((c, i) => (clusters.findIndex((d) => d[field] === c[field]) < i ? [i] : []));

describe('kueue.multiKueue: configuration', () => {
  it('absent by default: one cluster', () => {
    expect(ConfigSchema.parse({ namespace: 'ml' }).kueue.multiKueue).toBeUndefined();
  });

  it('a valid one is kept as written', () => {
    const input = kueue({ clusters: [{ name: 'worker-1', kubeconfig: '/etc/dispatch/worker-1' }, { name: 'worker.east', kubeconfig: 'east.kubeconfig' }] });
    expect(ConfigSchema.parse(input).kueue.multiKueue).toEqual(input.kueue.multiKueue);
  });

  it('every problem is named at once, each by its path', () => {
    expect(
      reasons({ ...kueue({ clusters: [{ name: 'w1', kubeconfig: '/m' }, { name: 'w1', kubeconfig: '/a' }, { name: 'W_2', kubeconfig: '/a' }, {}], extra: 1 }, 'kueue', '/m') }),
    ).toEqual([
      'kueue.multiKueue.clusters[2].name: not a valid MultiKueueCluster name (DNS-1123 subdomain)',
      'kueue.multiKueue.clusters[3].name: is required',
      'kueue.multiKueue.clusters[3].kubeconfig: is required',
      'kueue.multiKueue.extra: unknown field',
      'kueue.multiKueue.clusters[1].name: "w1" is also clusters[0]\'s: each worker cluster is named and reached once',
      'kueue.multiKueue.clusters[2].kubeconfig: "/a" is also clusters[1]\'s: each worker cluster is named and reached once',
      "kueue.multiKueue.clusters[0].kubeconfig: is the manager cluster's kubeconfig: a worker cluster is another API server",
    ]);
  });

  it('no worker cluster, or clusters of the wrong type, are refused', () => {
    expect(reasons(kueue({ clusters: [] }))).toEqual(['kueue.multiKueue.clusters: must name at least one worker cluster']);
    expect(reasons(kueue({}))).toEqual(['kueue.multiKueue.clusters: is required']);
    expect(reasons(kueue({ clusters: 'w1' }))).toEqual(['kueue.multiKueue.clusters: must be an array, not a string']);
    expect(reasons(kueue(null))).toEqual(['kueue.multiKueue: must be an object, not null']);
    expect(reasons(kueue({ clusters: [{ name: 'w1', kubeconfig: '' }] }))).toEqual([
      'kueue.multiKueue.clusters[0].kubeconfig: required: the path of the kubeconfig file that reaches this worker cluster',
    ]);
  });

  it('property: a list of clusters is accepted exactly when no name and no kubeconfig repeats, and each repeat is named at its index', () => {
    fc.assert(
      fc.property(fc.array(clusterArb, { minLength: 1, maxLength: 6 }), (clusters) => {
        const expected = [
          ...repeats(clusters, 'name').map((i) => `kueue.multiKueue.clusters[${i}].name`),
          ...repeats(clusters, 'kubeconfig').map((i) => `kueue.multiKueue.clusters[${i}].kubeconfig`),
        ];
        const got = reasons(kueue({ clusters })).map((r) => r.split(':')[0]);
        expect(got).toEqual(expected);
      }),
    );
  });

  it('property: outside kueue mode any multiKueue is refused, naming the mode, alongside its own problems', () => {
    fc.assert(
      fc.property(fc.constantFrom('plain', undefined), fc.array(clusterArb, { maxLength: 3 }), (mode, clusters) => {
        const got = reasons({ namespace: 'ml', ...(mode ? { mode } : {}), kueue: { multiKueue: { clusters } } });
        expect(got).toContain('kueue.multiKueue: only in kueue mode (mode is "plain")');
      }),
    );
  });

  it('property: a worker cluster reached with the manager\'s own kubeconfig is refused, whichever it is', () => {
    fc.assert(
      fc.property(fc.array(clusterArb, { minLength: 1, maxLength: 4 }), fc.constantFrom('/k/1', '/k/9'), (clusters, manager) => {
        const got = reasons(kueue({ clusters }, 'kueue', manager)).filter((r) => r.includes("manager cluster's kubeconfig"));
        expect(got).toEqual(clusters.flatMap((c, i) => (c.kubeconfig === manager ? [`kueue.multiKueue.clusters[${i}].kubeconfig: is the manager cluster's kubeconfig: a worker cluster is another API server`] : [])));
      }),
    );
  });
});
