// One pass of the admission check controller, as its two reconcilers share it: the calls (on the
// pass's own signal), the time conditions are stamped with, the counters, what went wrong and what
// was written. A write is a planned write from the core, sent with its JSON-patch tests; the second
// of two identical writes (two workers, or one restarted) fails its test: a stale write, counted
// and left for the next pass to re-read.
import { describeRefusal, KubeUnanswered, type KubeAnswer } from '../../kube/call.js';
import { isStaleWrite, sendPlannedWrite } from '../../kube/planned-write.js';
import type { ObjectCalls } from '../../kube/objects.js';
import type { PlannedWrite } from '../../core/objects/planned-write.js';
import type { AdmissionCounters } from '../../core/admission/counters.js';
import type { KubeObject } from '../../model/kube.js';
import type { Log } from '../../observability/log.js';

/** What a write came to: applied (and the object as written), stale (read again), or refused. */
export type WriteOutcome = { outcome: 'applied'; object: KubeObject } | { outcome: 'stale' } | { outcome: 'refused' };

/** What a write does, for the counters. */
export type WriteKind = 'active' | 'ready' | 'undo' | 'nudge';

const APPLIED: Record<WriteKind, keyof AdmissionCounters> = { active: 'activeWrites', ready: 'readyWrites', undo: 'undoWrites', nudge: 'nudgeWrites' };

export class AdmissionPass {
  /** What kept the pass from doing all it should, for the log. */
  readonly problems: string[] = [];
  /** Writes that applied, by summary. */
  readonly applied: string[] = [];

  constructor(
    readonly calls: ObjectCalls,
    /** RFC 3339: the time conditions and check states are stamped with. */
    readonly at: string,
    readonly workloadVersion: string,
    private readonly counters: AdmissionCounters,
    private readonly log: Log,
  ) {}

  /** Makes the call; one unanswered is counted and thrown as KubeUnanswered: it ends the pass, and the next pass tries again. */
  async ask<T>(call: () => Promise<KubeAnswer<T>>): Promise<KubeAnswer<T>> {
    try {
      return await call();
    } catch (error) {
      this.counters.unanswered++;
      throw error instanceof KubeUnanswered ? error : new KubeUnanswered((error as Error).message);
    }
  }

  /** A definite refusal of a read or list: counted, and a problem naming what was refused. */
  refused(what: string, answer: { status: number; reason: string; message: string }): void {
    this.counters.refused++;
    this.problems.push(`${what}: ${describeRefusal(answer)}`);
  }

  /** Sends one planned write; a stale one is counted, any other refusal is a problem too. */
  async write(planned: PlannedWrite, kind: WriteKind): Promise<WriteOutcome> {
    const answer = await this.ask(() => sendPlannedWrite(this.calls, planned, this.workloadVersion));
    if (answer.answered === 'ok') {
      this.counters[APPLIED[kind]]++;
      this.applied.push(planned.summary);
      this.log('admission check controller wrote', { write: planned.summary });
      return { outcome: 'applied', object: answer.value };
    }
    if (isStaleWrite(answer)) {
      this.counters.stale++;
      return { outcome: 'stale' };
    }
    this.refused(planned.summary, answer);
    return { outcome: 'refused' };
  }
}
