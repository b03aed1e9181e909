// The recorded histories of test/histories/<set>/*.json (scripts/record-histories.ts), loaded for
// replay, with the manifest each set carries.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultPayloadConverter } from '@temporalio/common';
import { historyFromJson, type History } from './history-json.js';

export const HISTORIES_DIR = fileURLToPath(new URL('../../histories/', import.meta.url));

export interface ManifestEntry {
  file: string;
  workflowType: string;
  what: string;
  outcome: string;
  events: number;
}

export interface Manifest {
  set: string;
  note: string;
  /** The commit whose src/ made the histories: the workflows, activities and worker. */
  commit: string;
  /** When another commit's scenarios and stack ran that code (`histories:record --code`): its commit. */
  recorder?: string;
  recordedAt: string;
  histories: ManifestEntry[];
}

export interface RecordedHistory {
  /** "<set>/<file>", as the replay names it. */
  name: string;
  set: string;
  file: string;
  history: History;
}

export const setNames = (): string[] =>
  readdirSync(HISTORIES_DIR, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();

export const manifestOf = (set: string): Manifest =>
  JSON.parse(readFileSync(join(HISTORIES_DIR, set, 'manifest.json'), 'utf8')) as Manifest;

export function historyFiles(set: string): string[] {
  return readdirSync(join(HISTORIES_DIR, set))
    .filter((f) => f.endsWith('.json') && f !== 'manifest.json')
    .sort();
}

export function loadHistory(set: string, file: string): RecordedHistory {
  const json: unknown = JSON.parse(readFileSync(join(HISTORIES_DIR, set, file), 'utf8'));
  return { name: `${set}/${file}`, set, file, history: historyFromJson(json) };
}

/** Every recorded history of every set. */
export const allHistories = (): RecordedHistory[] =>
  setNames().flatMap((set) => historyFiles(set).map((file) => loadHistory(set, file)));

type HistoryEvent = NonNullable<History['events']>[number];

/** The ids of the patches a history's markers record (`patched()` / `deprecatePatch()`). */
export function patchIds(history: History): string[] {
  return (history.events ?? []).flatMap((event: HistoryEvent) => {
    const marker = event.markerRecordedEventAttributes;
    const payload =
      marker?.markerName === 'core_patch' ? marker.details?.['patch-data']?.payloads?.[0] : undefined;
    return payload ? [(defaultPayloadConverter.fromPayload(payload) as { id: string }).id] : [];
  });
}

/** Search attribute upserts the workflow code made (core's TemporalChangeVersion upsert for a patch left out). */
export function codeUpserts(history: History): number {
  return (history.events ?? []).filter((event: HistoryEvent) => {
    const fields = event.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields;
    return fields && Object.keys(fields).some((key) => key !== 'TemporalChangeVersion');
  }).length;
}
