// JobIDs for examples and tests: canonical ULIDs (26 Crockford base32 characters, the first 0-7).
// dispatch assigns real ones; these only need to be valid and unique.
import { randomInt } from 'node:crypto';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

export function randomJobId(): string {
  let id = String(randomInt(0, 8));
  for (let i = 1; i < 26; i++) id += CROCKFORD[randomInt(0, 32)];
  return id;
}
