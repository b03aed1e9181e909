// fast-check arbitraries for requests within the adapter's limits (docs/contract.md §2, docs/start.md's spec
// table), shared by the property tests of rendering.
import fc from 'fast-check';
import { Extensions, Limits } from '../../src/model/constants.js';
import type { StartRequest } from '../../src/model/request.js';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

export const jobIdArb = fc
  .tuple(fc.constantFrom(...'01234567'), fc.array(fc.constantFrom(...CROCKFORD), { minLength: 25, maxLength: 25 }))
  .map(([first, rest]) => first + rest.join(''));

export const submissionArb = fc.integer({ min: Limits.submissionMin, max: Limits.submissionMax });

/** Strings without NUL, which validation refuses in the command and env. */
export const noNulArb = fc.string({ unit: 'binary', maxLength: 40 }).filter((s) => !s.includes('\u0000'));

const envKeyArb = fc
  .stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,12}$/)
  .filter((k) => !k.startsWith('DISPATCH_'));

const timeLimitArb = fc.oneof(
  fc.constant(undefined),
  fc.constant('0s'),
  fc.nat(100_000).map((ms) => `${ms}ms`),
  fc.tuple(fc.nat(48), fc.nat(59), fc.nat(999_999_999)).map(([h, m, ns]) => `${h}h${m}m${ns}ns`),
);

/** A request that passes validation, on the given runtime, with up to the limits' worth of items. */
export function requestArb(runtime: { kind: 'TrainingRuntime' | 'ClusterTrainingRuntime'; name: string }) {
  return fc
    .record({
      job: jobIdArb,
      generation: fc.integer({ min: 0, max: Limits.generationMax }),
      submission: submissionArb,
      attempt: fc.nat(),
      workDir: fc.option(fc.constantFrom('/workspace', '/tmp/a b', 'relative/dir'), { nil: undefined }),
      // Half the time exactly at the limit, which fast-check's default sizes would never reach.
      command: fc.oneof(
        fc.array(noNulArb, { minLength: 1, maxLength: Limits.commandMax }),
        fc.array(noNulArb, { minLength: Limits.commandMax, maxLength: Limits.commandMax }),
      ),
      envKeys: fc.oneof(
        fc.uniqueArray(envKeyArb, { maxLength: Limits.envMax }),
        fc.uniqueArray(envKeyArb, { minLength: Limits.envMax, maxLength: Limits.envMax }),
      ),
      envValue: noNulArb,
      nodes: fc.integer({ min: 1, max: 1024 }),
      gpusPerNode: fc.option(fc.integer({ min: 0, max: 4096 }), { nil: undefined }),
      procsPerNode: fc.option(fc.integer({ min: 0, max: 256 }), { nil: undefined }),
      timeLimit: timeLimitArb,
    })
    .map(({ envKeys, envValue, workDir, ...r }): StartRequest => {
      const keys = workDir ? envKeys.slice(0, Limits.envMaxWithWorkDir) : envKeys;
      return {
        job: r.job,
        generation: r.generation,
        submission: r.submission,
        attempt: r.attempt,
        spec: {
          command: r.command,
          env: Object.fromEntries(keys.map((k, i) => [k, `${envValue}${i}`])),
          ...(workDir ? { workDir } : {}),
          nodes: r.nodes,
          ...(r.gpusPerNode === undefined ? {} : { gpusPerNode: r.gpusPerNode }),
          ...(r.procsPerNode === undefined ? {} : { procsPerNode: r.procsPerNode }),
          ...(r.timeLimit === undefined ? {} : { timeLimit: r.timeLimit }),
          extensions: {
            [Extensions.image]: { ref: 'ghcr.io/example/train:1.4' },
            [Extensions.runtimeRef]: runtime,
          },
        },
      };
    });
}
