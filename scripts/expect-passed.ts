// `tsx scripts/expect-passed.ts <vitest json report> "<name part>=<count>" ...`: fails unless, for
// each name part, at least <count> tests whose full name holds it passed. A run that selects tests
// by name (`vitest -t`) passes when the pattern matches nothing, or fewer tests than meant after a
// rename; this is what notices.
import { readFileSync } from 'node:fs';

interface Report {
  testResults: { assertionResults: { fullName: string; status: string }[] }[];
}

function main(args: string[]): number {
  const [file, ...wants] = args;
  if (!file || wants.length === 0) {
    console.error('usage: tsx scripts/expect-passed.ts <vitest json report> "<name part>=<count>" ...');
    return 2;
  }
  const report = JSON.parse(readFileSync(file, 'utf8')) as Report;
  const passed = report.testResults.flatMap((f) => f.assertionResults).filter((t) => t.status === 'passed');
  let short = 0;
  for (const want of wants) {
    const at = want.lastIndexOf('=');
    const part = want.slice(0, at);
    const count = Number(want.slice(at + 1));
    if (at <= 0 || !Number.isInteger(count) || count < 1) {
      console.error(`expect-passed: "${want}" is not "<name part>=<count>"`);
      return 2;
    }
    const got = passed.filter((t) => t.fullName.includes(part)).length;
    console.log(`expect-passed: "${part}": ${got} passed, ${count} expected`);
    if (got < count) short += 1;
  }
  if (short > 0) console.error(`expect-passed: ${short} of ${wants.length} groups ran fewer passing tests than expected`);
  return short > 0 ? 1 : 0;
}

process.exitCode = main(process.argv.slice(2));
