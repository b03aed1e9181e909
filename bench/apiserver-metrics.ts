// Where the API server's time goes, from its own /metrics: how many requests of each verb and
// resource it served and how long it took over them (apiserver_request_duration_seconds), and how
// long it waited for each admission webhook (apiserver_admission_webhook_admission_duration_seconds).
// Two scrapes around a measurement give the requests of everyone: dispatch's calls and those the
// controllers (Trainer, JobSet, Kueue) make in answer.
import { kubeRequest, type KubeAccess } from '../dev/harness/kube-access.js';

/** Cumulative sums and counts by series: `request|POST|trainer.kubeflow.org/trainjobs` or `webhook|CREATE|<name>`. */
export type ApiserverScrape = Map<string, { seconds: number; count: number }>;

const FAMILIES = {
  apiserver_request_duration_seconds: 'request',
  apiserver_admission_webhook_admission_duration_seconds: 'webhook',
} as const;

const labelsOf = (text: string) =>
  Object.fromEntries([...text.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]));

/** The series' key: what was served (verb and resource) or which webhook was waited for. */
function keyOf(kind: 'request' | 'webhook', labels: Record<string, string>): string {
  if (kind === 'webhook') return `webhook|${labels.operation}|${labels.name}`;
  const resource = [labels.group ? `${labels.group}/` : '', labels.resource, labels.subresource ? `/${labels.subresource}` : ''].join('');
  return `request|${labels.verb}|${resource}`;
}

export async function scrapeApiserver(admin: KubeAccess): Promise<ApiserverScrape> {
  const res = await kubeRequest(admin, 'GET', '/metrics');
  if (res.status !== 200) throw new Error(`GET /metrics: HTTP ${res.status}`);
  const scrape: ApiserverScrape = new Map();
  for (const line of res.body.split('\n')) {
    const match = /^(\w+)_(sum|count)\{([^}]*)\} (\S+)$/.exec(line);
    if (!match) continue;
    const kind = FAMILIES[match[1] as keyof typeof FAMILIES];
    if (!kind) continue;
    const labels = labelsOf(match[3]!);
    // A watch's duration is how long it stayed open, not work done for a request.
    if (labels.verb === 'WATCH' || labels.verb === 'CONNECT') continue;
    const key = keyOf(kind, labels);
    const entry = scrape.get(key) ?? { seconds: 0, count: 0 };
    if (match[2] === 'sum') entry.seconds += Number(match[4]);
    else entry.count += Number(match[4]);
    scrape.set(key, entry);
  }
  return scrape;
}

export interface ServedPerUnit {
  kind: 'request' | 'webhook';
  /** `POST trainer.kubeflow.org/trainjobs`, or `CREATE vtrainjob.kb.io`. */
  what: string;
  /** Per unit of work (a Start, a direct run). */
  count: number;
  /** Mean ms the API server spent on one (a request from arrival to answer; a webhook call). */
  meanMs: number;
}

/** What the API server served between two scrapes, per unit of work, busiest first. */
export function servedBetween(from: ApiserverScrape, to: ApiserverScrape, units: number): ServedPerUnit[] {
  const served: ServedPerUnit[] = [];
  for (const [key, now] of to) {
    const count = now.count - (from.get(key)?.count ?? 0);
    if (count <= 0) continue;
    const seconds = now.seconds - (from.get(key)?.seconds ?? 0);
    const [kind, verb, what] = key.split('|') as ['request' | 'webhook', string, string];
    served.push({ kind, what: `${verb} ${what}`, count: count / units, meanMs: (seconds * 1000) / count });
  }
  return served.sort((a, b) => b.count * b.meanMs - a.count * a.meanMs);
}

/** "POST trainer.kubeflow.org/trainjobs 1.00 x 37.0 ms, ..." for the ones of `kind` at least `minCount` per unit. */
export function describeServed(served: ServedPerUnit[], kind: 'request' | 'webhook', minCount = 0.05): string {
  return served
    .filter((s) => s.kind === kind && s.count >= minCount)
    .map((s) => `${s.what} ${s.count.toFixed(2)} x ${s.meanMs.toFixed(1)} ms`)
    .join('; ');
}
