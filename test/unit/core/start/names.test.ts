import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { attemptToken, comment, epochPrefix, trainJobName } from '../../../../src/core/start/names.js';
import { Dispatch, Limits } from '../../../../src/model/constants.js';
import { JOB_ID_PATTERN } from '../../../../src/model/request.js';
import { jobIdArb, submissionArb } from '../../../golden/requests.js';

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
// The TrainJob CRD's own rule on metadata.name (RFC 1035: a letter first).
const RFC1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

describe('trainJobName (docs/start.md, "The TrainJob": dj-<lowercase JobID>-s<N>, at most 37 characters)', () => {
  it('docs/start.md, request table, Job and Submission: the name and its suffix', () => {
    expect(trainJobName('01JD0Q3J0Y6Q7J7Z4W2X5V8K9M', 12)).toBe('dj-01jd0q3j0y6q7j7z4w2x5v8k9m-s12');
  });

  it('writes N without padding, up to 999,999 in 37 characters', () => {
    expect(trainJobName('7ZZZZZZZZZZZZZZZZZZZZZZZZZ', 1)).toBe('dj-7zzzzzzzzzzzzzzzzzzzzzzzzz-s1');
    expect(trainJobName('7ZZZZZZZZZZZZZZZZZZZZZZZZZ', 999_999)).toHaveLength(Dispatch.maxNameLength);
  });

  it('is a DNS-1123 (and RFC 1035) label of at most 37 characters for every valid JobID and submission', () => {
    fc.assert(
      fc.property(jobIdArb, submissionArb, (job, n) => {
        expect(job).toMatch(JOB_ID_PATTERN);
        const name = trainJobName(job, n);
        expect(name.length).toBeLessThanOrEqual(Dispatch.maxNameLength);
        expect(name).toMatch(DNS1123_LABEL);
        expect(name).toMatch(RFC1035_LABEL);
      }),
    );
  });
});

describe('attemptToken (docs/contract.md §3: <attempt>-<first 12 hex of sha256("<namespace>/<name>/<attempt>")>)', () => {
  const nodeToken = (ns: string, name: string, attempt: number) =>
    `${attempt}-${createHash('sha256').update(`${ns}/${name}/${attempt}`).digest('hex').slice(0, 12)}`;

  it('agrees with node:crypto', () => {
    expect(attemptToken('ml-jobs', 'dj-01jd0q3j0y6q7j7z4w2x5v8k9m-s12', 1)).toBe(
      nodeToken('ml-jobs', 'dj-01jd0q3j0y6q7j7z4w2x5v8k9m-s12', 1),
    );
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.string(), fc.nat(), (ns, name, attempt) => {
        expect(attemptToken(ns, name, attempt)).toBe(nodeToken(ns, name, attempt));
      }),
    );
  });

  it('docs/start.md, request table, Attempt: the token starts with the attempt', () => {
    expect(attemptToken('ml-jobs', 'dj-x-s1', 0)).toMatch(/^0-[0-9a-f]{12}$/);
    expect(attemptToken('ml-jobs', 'dj-x-s1', 42)).toMatch(/^42-[0-9a-f]{12}$/);
  });

  it('is stable for one attempt and differs across attempts, namespaces and names', () => {
    fc.assert(
      fc.property(jobIdArb, submissionArb, fc.nat(), fc.nat(), (job, n, a, b) => {
        const name = trainJobName(job, n);
        expect(attemptToken('ml-jobs', name, a)).toBe(attemptToken('ml-jobs', name, a));
        if (a !== b) expect(attemptToken('ml-jobs', name, a)).not.toBe(attemptToken('ml-jobs', name, b));
      }),
    );
    expect(attemptToken('a', 'dj-x-s1', 1)).not.toBe(attemptToken('b', 'dj-x-s1', 1));
    expect(attemptToken('a', 'dj-x-s1', 1)).not.toBe(attemptToken('a', 'dj-x-s2', 1));
  });
});

describe('epochPrefix and comment', () => {
  it('docs/start.md, request table, Generation: DISPATCH_K8S_EPOCH_PREFIX = G × 10^6 + N', () => {
    expect(epochPrefix(3, 12)).toBe(3_000_012);
    expect(epochPrefix(0, 1)).toBe(1);
    expect(epochPrefix(Limits.generationMax, Limits.submissionMax)).toBe(18_000_000_999_999);
    expect(Number.isSafeInteger(epochPrefix(Limits.generationMax, Limits.submissionMax))).toBe(true);
  });

  it('docs/start.md, request table, Submission and Attempt: the comment', () => {
    expect(comment('01JD0Q3J0Y6Q7J7Z4W2X5V8K9M', 3, 12, 1)).toBe(
      'dispatch job=01JD0Q3J0Y6Q7J7Z4W2X5V8K9M g=3 s=12 a=1',
    );
  });
});
