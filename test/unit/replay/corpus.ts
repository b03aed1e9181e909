// The recorded histories of test/histories/<set>/*.json (scripts/record-histories.ts), loaded for
// replay, with the manifest each set carries.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
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
  commit: string;
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
