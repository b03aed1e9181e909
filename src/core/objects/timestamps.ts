// RFC 3339 timestamps as Kubernetes writes them (metav1.Time: `2026-01-02T03:04:05Z`; the
// controller stamps with fractions, `...05.123Z`), read as milliseconds since the epoch without
// Date: the core keeps no clock, and Date's parser is one more thing a workflow must not touch.

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/** Days from 1970-01-01 to the civil date (proleptic Gregorian; H. Hinnant's days_from_civil). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

/** The timestamp's milliseconds since the epoch; undefined when it is not RFC 3339. */
export function epochMillisOf(timestamp: unknown): number | undefined {
  if (typeof timestamp !== 'string') return undefined;
  const m = RFC3339.exec(timestamp);
  if (m === null) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) return undefined;
  const millis = m[7] === undefined ? 0 : Number(m[7].slice(0, 3).padEnd(3, '0'));
  const offsetMinutes = m[8] !== undefined ? 0 : (m[9] === '-' ? -1 : 1) * (Number(m[10]) * 60 + Number(m[11]));
  return ((daysFromCivil(year, month, day) * 24 + hour) * 60 + minute - offsetMinutes) * 60_000 + second * 1_000 + millis;
}
