// What a workflow needs from the worker before step 1: the configuration and the latest preflight.
// Run as a local activity, so both are recorded in the history and replay sees the same values.
import type { Config } from '../model/config.js';
import type { BackendGates } from '../model/results.js';

/** What the activities read of the worker's SettingsSource: a test gives them a plain object. */
export type SettingsView = Pick<SettingsSource, 'config' | 'latestGates'>;

export interface Settings {
  config: Config;
  gates?: BackendGates;
}

export function settingsOf(source: SettingsView): Settings {
  const gates = source.latestGates();
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
 * The worker's view of its backend: the configuration, and the latest preflight (none before the
 * first), which the worker's preflight loop updates.
 */
export class SettingsSource {
  private gates: BackendGates | undefined;
  constructor(readonly config: Config) {}
  latestGates(): BackendGates | undefined {
    return this.gates;
  }
  update(gates: BackendGates): void {
    this.gates = gates;
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
