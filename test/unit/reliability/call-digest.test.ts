// The failed-call digest a reliability test prints when it fails: it must find every refused and
// unanswered call in a worker log (the format the worker's logger writes), and fold repeats.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { failedCallDigest, loggedFailedCalls } from '../../reliability/support/call-digest.js';

const block = (at: string, outcome: 'refused' | 'unanswered', step: string, tail: string[]) =>
  [`${at} [${outcome === 'refused' ? 'INFO' : 'WARN'}] Kubernetes call ${outcome} {`, `  sdkComponent: 'activity',`, `  step: '${step}',`, `  method: 'patch',`, ...tail, '}'].join('\n');

const LOG = [
  `2026-12-02T02:36:05.560Z [INFO] Worker state changed {`,
  `  state: 'RUNNING'`,
  `}`,
  block('2026-12-02T02:36:05.948Z', 'refused', '6 create TrainJob', [`  status: 403,`, `  reason: 'Forbidden'`]),
  block('2026-12-02T02:36:06.266Z', 'refused', '6 create TrainJob', [`  status: 403,`, `  reason: 'Forbidden'`]),
  block('2026-12-02T02:36:32.351Z', 'unanswered', '7 set owner', [`  outcome: 'unanswered',`, `  detail: 'patch X: no answer (HTTP 502 fault proxy)'`]),
  `2026-12-02T02:36:32.360Z [WARN] Activity failed {`,
  `  step: '7 set owner',`,
  `}`,
].join('\n');

describe('failed-call digest', () => {
  it('finds each refused and unanswered call with its step and answer, and nothing else', () => {
    expect(loggedFailedCalls(LOG)).toEqual([
      { at: '2026-12-02T02:36:05.948Z', step: '6 create TrainJob', outcome: 'refused', what: '403 Forbidden' },
      { at: '2026-12-02T02:36:06.266Z', step: '6 create TrainJob', outcome: 'refused', what: '403 Forbidden' },
      { at: '2026-12-02T02:36:32.351Z', step: '7 set owner', outcome: 'unanswered', what: 'patch X: no answer (HTTP 502 fault proxy)' },
    ]);
  });

  it('folds a run of the same answer into one line with its count and times', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'digest-')), 'worker.log');
    writeFileSync(file, LOG);
    expect(failedCallDigest(file).split('\n')).toEqual([
      '2026-12-02T02:36:05.948Z..2026-12-02T02:36:06.266Z x2 step 6 create TrainJob refused: 403 Forbidden',
      '2026-12-02T02:36:32.351Z step 7 set owner unanswered: patch X: no answer (HTTP 502 fault proxy)',
    ]);
    expect(failedCallDigest(file, 1).split('\n')).toHaveLength(2);
  });

  it('says so when there is no log', () => {
    expect(failedCallDigest('/nonexistent/worker.log')).toMatch(/^\(no worker log at/);
  });
});
