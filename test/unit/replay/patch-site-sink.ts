// Bundled into the instrumented workflow code (patch-sites.ts) and nowhere else: each `patched()`
// call of src/workflows is rewritten to pass its answer through reportPatchSite, which tells the
// replaying worker the call's site, id and answer through a sink, then answers the same.
import { proxySinks, type Sinks } from '@temporalio/workflow';

export interface PatchSiteSinks extends Sinks {
  patchSites: { reached(site: string, id: string, answer: boolean): void };
}

const { patchSites } = proxySinks<PatchSiteSinks>();

export function reportPatchSite(site: string, id: string, answer: boolean): boolean {
  patchSites.reached(site, id, answer);
  return answer;
}
