// The chaos run against workers broken on purpose (test/chaos/broken-worker.ts): its checker must
// fail them, and the run must end within its time budget. Each case runs `npm run test:chaos` as CI
// does, on a stack of its own, with no faults (--fault-gap 0): every refusal is then the product's
// alone, and no rule of the checker may excuse it.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../../dev/harness/paths.js';

/** How long the run's own stack may take to come up on two busy cores (measured 8-13 s idle; the chaos stack has four workers). */
const STACK_UP_S = 120;
/** The MultiKueue stack's: two clusters (up in 64 s on the loaded machine, --multikueue), and its cleanup's bound (150 s) after the settle. */
const MULTIKUEUE_STACK_UP_S = 180;
const MULTIKUEUE_CLEANUP_S = 150;
/** What the run does after its lifecycles (main.ts): CallBound (30 s), then the settle loop (--settle-seconds), then stops its stack. */
const AFTER_S = 30 + 10 + 30;

interface Ran {
  code: number | null;
  out: string;
  seconds: number;
}

/** Runs the chaos run with `args`; killed (and failed) if it outlives `boundS`. */
function chaos(args: string[], boundS: number): Promise<Ran> {
  const t0 = Date.now();
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/chaos/main.ts', '--jobs', '2', '--concurrency', '2', '--fault-gap', '0', '--settle-seconds', '10', ...args], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const killer = setTimeout(() => child.kill('SIGKILL'), boundS * 1000);
  return new Promise((resolve) => {
    child.on('exit', (code) => {
      clearTimeout(killer);
      resolve({ code, out, seconds: (Date.now() - t0) / 1000 });
    });
  });
}

const violations = (out: string) => [...out.matchAll(/^\[chaos +[\d.]+ s\] {3}([a-z-]+)(?: \(lifecycle \d+\))?: (.*)$/gm)].map((m) => ({ invariant: m[1]!, detail: m[2]! }));

describe('the chaos run fails a broken worker within its budget', () => {
  it('workers that refuse every Start: each refusal is a violation (answers-justified), and the run ends within its budget', { timeout: 600_000 }, async () => {
    const budgetS = 120;
    const boundS = STACK_UP_S + budgetS + AFTER_S;
    const ran = await chaos(['--seed', '35', '--budget-seconds', String(budgetS), '--broken', 'starts-refused'], boundS + 60);
    expect(ran.out).toContain('workers broken on purpose: starts-refused');
    expect(ran.code, ran.out.slice(-4_000)).toBe(1);
    const found = violations(ran.out);
    expect(found).toContainEqual({ invariant: 'answers-justified', detail: expect.stringMatching(/^start try 1 \((plain|kueue)\) answered ErrUnsupported at step 1: start: refused by a worker broken on purpose .*gate-unsupported needs a fault/) });
    expect(found.map((v) => v.invariant)).toContain('lifecycle-completes-shape');
    expect(found.map((v) => v.invariant)).not.toContain('run-within-budget');
    expect(ran.seconds).toBeLessThan(boundS);
  });

  it("workers whose Watch never answers: the lifecycles outrun the run's budget, which gives them up with a violation (run-within-budget), and the run ends within its bound", { timeout: 600_000 }, async () => {
    const budgetS = 90;
    const boundS = STACK_UP_S + budgetS + AFTER_S;
    const ran = await chaos(['--seed', '36', '--budget-seconds', String(budgetS), '--broken', 'watch-silent'], boundS + 60);
    expect(ran.code, ran.out.slice(-4_000)).toBe(1);
    expect(ran.out).toMatch(/VIOLATION run-within-budget: the lifecycles outran their budget of 90 s/);
    const found = violations(ran.out).map((v) => v.invariant);
    expect(found).toContain('run-within-budget');
    // The Watches given up never said Succeeded.
    expect(found).toContain('opened-jobs-reach-an-outcome');
    expect(ran.seconds).toBeLessThan(boundS);
  });

  it("--multikueue, workers that make step 5's copy on the manager only: no job runs on the worker cluster (Trainer there finds no runtime), so none reaches its Outcome, ran-on-a-worker-cluster fails, and the run ends within its bound", { timeout: 900_000 }, async () => {
    const budgetS = 120;
    const boundS = MULTIKUEUE_STACK_UP_S + budgetS + AFTER_S + MULTIKUEUE_CLEANUP_S;
    const ran = await chaos(['--seed', '37', '--budget-seconds', String(budgetS), '--broken', 'no-worker-copies', '--multikueue'], boundS + 60);
    expect(ran.out).toContain('workers broken on purpose: no-worker-copies');
    expect(ran.out).toContain('MultiKueue (a manager and one worker cluster)');
    expect(ran.code, ran.out.slice(-4_000)).toBe(1);
    const found = violations(ran.out);
    const invariants = found.map((v) => v.invariant);
    // Each job left to run never ran: the lifecycles outran the budget waiting for Watch.
    expect(invariants).toContain('ran-on-a-worker-cluster');
    expect(found).toContainEqual({ invariant: 'ran-on-a-worker-cluster', detail: expect.stringMatching(/^Watch's Outcome never came; the run's worker clusters: \[worker-1\]$/) });
    expect(invariants).toContain('opened-jobs-reach-an-outcome');
    expect(ran.seconds).toBeLessThan(boundS);
  });
});

