// What a workflow needs from the worker before step 1: the configuration and the latest preflight.
// Run as a local activity, so both are recorded in the history and replay sees the same values.
import type { Config } from '../model/config.js';
import type { BackendGates } from '../model/results.js';

/**
 * What the activities read of the worker's SettingsSource: a test gives them a plain object, which
 * need not wait for definite gates.
 */
export type SettingsView = Pick<SettingsSource, 'config' | 'latestGates'> & Partial<Pick<SettingsSource, 'definiteGates'>>;

export interface Settings {
  config: Config;
  gates?: BackendGates;
}

export function settingsOf(source: SettingsView, gates = source.latestGates()): Settings {
  return gates ? { config: source.config, gates } : { config: source.config };
}

export function settingsActivities(source: SettingsView) {
  return {
    async getSettings(): Promise<Settings> {
      return settingsOf(source);
    },
  };
}

/**
 * Whether gates decide a Start's step 1 (docs/contract.md §8): every gate proven, or one definitely
 * refused. Unknown: no preflight has ended yet, the API did not answer it (reach), or its access
 * review or probe Start had no definite answer.
 */
export function areDefinite(gates: BackendGates | undefined): gates is BackendGates {
  return gates !== undefined && gates.reach && gates.writeUnknown !== true && gates.startUnknown !== true;
}

/**
 * The worker's view of its backend: the configuration, and the latest preflight (none before the
 * first), which the worker's preflight loop updates.
 */
export class SettingsSource {
  private gates: BackendGates | undefined;
  /** Resolvers of the waits for definite gates (definiteGates), called at each update. */
  private readonly waiting = new Set<() => void>();
  constructor(readonly config: Config) {}
  latestGates(): BackendGates | undefined {
    return this.gates;
  }
  update(gates: BackendGates): void {
    this.gates = gates;
    for (const wake of this.waiting) wake();
  }
  /**
   * The latest gates once they are definite, waiting at most `ms` for a preflight to make them so
   * (docs/contract.md §8: a Start that meets an unknown gate waits for it, its first preflight or
   * the re-probe after a fault); after `ms`, the latest gates as they are.
   */
  async definiteGates(ms: number): Promise<BackendGates | undefined> {
    if (areDefinite(this.gates)) return this.gates;
    await new Promise<void>((resolve) => {
      const done = () => (clearTimeout(timer), this.waiting.delete(check), resolve());
      const check = () => (areDefinite(this.gates) ? done() : undefined);
      const timer = setTimeout(done, ms);
      this.waiting.add(check);
    });
    return this.gates;
  }
  /**
   * The probe has not ended within its bound: until one ends, the start gate is unknown (step 1
   * answers the retryable ErrUnreachable naming it). Before the first preflight has ended there
   * are no gates, which step 1 already refuses with ErrUnreachable.
   */
  startUnknown(reason: string): void {
    if (!this.gates) return;
    const others = this.gates.reasons.filter((r) => !r.startsWith('start:'));
    this.gates = { ...this.gates, start: false, startUnknown: true, reasons: [...others, `start: ${reason}`] };
  }
}
