// Go duration strings ("90m", "1.5s", "2h0m0.25s"), parsed exactly as Go's time.ParseDuration
// does, into integer nanoseconds (bigint, so that "2562047h" and fractions never lose precision).

const UNIT_NANOS: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  'µs': 1_000n, // U+00B5 micro sign
  'μs': 1_000n, // U+03BC Greek mu
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

const MAX_INT64 = 9_223_372_036_854_775_807n;
const COMPONENT = /^(\d*)(?:\.(\d*))?(ns|us|µs|μs|ms|s|m|h)/u;

/** Nanoseconds of a Go duration, or undefined when the text is not one. */
export function parseGoDuration(text: string): bigint | undefined {
  let rest = text;
  let negative = false;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    negative = rest.startsWith('-');
    rest = rest.slice(1);
  }
  if (rest === '0') return 0n;
  if (rest === '') return undefined;
  let total = 0n;
  while (rest !== '') {
    const match = COMPONENT.exec(rest);
    if (!match) return undefined;
    const [whole, intPart = '', fracPart, unit = ''] = match;
    if (intPart === '' && (fracPart === undefined || fracPart === '')) return undefined;
    const scale = UNIT_NANOS[unit]!;
    let nanos = BigInt(intPart === '' ? '0' : intPart) * scale;
    if (fracPart) {
      // Truncate, as Go does, below one nanosecond.
      nanos += (BigInt(fracPart) * scale) / 10n ** BigInt(fracPart.length);
    }
    total += nanos;
    if (total > MAX_INT64) return undefined;
    rest = rest.slice(whole.length);
  }
  return negative ? -total : total;
}

/** Whole seconds, rounded up, of a non-negative nanosecond count. */
export function ceilSeconds(nanos: bigint): number {
  const second = 1_000_000_000n;
  return Number((nanos + second - 1n) / second);
}

/** Milliseconds of a positive duration, for timers and timeouts. */
export function toMillis(nanos: bigint): number {
  return Number(nanos / 1_000_000n);
}
