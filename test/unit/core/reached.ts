// A property that filters its inputs (an early `return`, `fc.pre`, assertions under an `if`) checks
// only the generated cases that get through, and passes just the same when none does: a generator
// that drifts, or a filter made stricter, turns it into a test of nothing. assertReaching runs the
// property with a counter that its predicate calls where its assertions run, and fails when fewer
// than `minimum` cases got there.
//
// The minimum of each property is set well under what its generators give (measured over seeds,
// said beside each call), and high enough that a property still tests something: a filter that
// lets a tenth of that through fails it, one that lets most through never does.
import fc from 'fast-check';

/**
 * Runs fc.assert on the property `build` makes, counting the cases that call `reached()` (or, for a
 * property with assertions under several conditions, `reached(name)` for each: `minimum` then
 * names a minimum for each); throws when a count is under its minimum. Answers the counts.
 */
export function assertReaching<Ts, K extends string = 'assertions'>(
  minimum: number | Record<K, number>,
  build: (reached: (name?: K) => void) => fc.IProperty<Ts>,
  params?: fc.Parameters<Ts>,
): Record<K, number> {
  const minimums = (typeof minimum === 'number' ? { assertions: minimum } : minimum) as Record<K, number>;
  const counts = Object.fromEntries(Object.keys(minimums).map((name) => [name, 0])) as Record<K, number>;
  fc.assert(
    build((name = 'assertions' as K) => {
      if (!(name in counts)) throw new Error(`reached("${name}"): no minimum is set for it`);
      counts[name] += 1;
    }),
    params,
  );
  if (process.env.DISPATCH_KUBEFLOW_REACHED) console.log(`[reached] ${JSON.stringify(counts)} (minimum ${JSON.stringify(minimums)})`);
  const short = (Object.keys(minimums) as K[]).filter((name) => counts[name] < minimums[name]);
  if (short.length > 0)
    throw new Error(
      `${short.map((name) => `${counts[name]} generated cases reached ${name === 'assertions' ? "the property's assertions" : `"${name}"`}, fewer than its minimum of ${minimums[name]}`).join('; ')}: the property's filter (an early return, fc.pre, an if) lets too few through for it to test anything`,
    );
  return counts;
}
