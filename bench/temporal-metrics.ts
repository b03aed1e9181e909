// What the Temporal server itself did, from its own Prometheus endpoint: the requests its history,
// matching and frontend services made of their store (`persistence_requests`, by operation). Two
// scrapes around a window give the store's work over it; the writes are the operations that change
// the store (an execution updated, history appended, a task added or completed, a timer set).
// This is how "Temporal writes per Watch per hour" is counted: from the server, not from the worker.

/** Cumulative persistence requests by operation (`UpdateWorkflowExecution`, `AppendHistoryNodes`, ...). */
export type PersistenceScrape = Map<string, number>;

/** Operations that write: named by what they do to the store. Everything else reads. */
const WRITES = /^(Create|Update|Append|Add|Delete|Complete|RangeComplete|RangeDelete|Put|Upsert|Set|Insert|Init|Conflict|Lease|Extend|Renew|Trim|Fork|Enqueue)/;

export const isWrite = (operation: string) => WRITES.test(operation);

export async function scrapePersistence(url: string): Promise<PersistenceScrape> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`GET ${url}: HTTP ${res.status}`);
  const scrape: PersistenceScrape = new Map();
  for (const line of (await res.text()).split('\n')) {
    const match = /^persistence_requests(?:_total)?\{([^}]*)\} (\S+)$/.exec(line);
    if (!match) continue;
    const operation = /(?:^|,)operation="([^"]*)"/.exec(match[1]!)?.[1];
    if (!operation) continue;
    scrape.set(operation, (scrape.get(operation) ?? 0) + Number(match[2]));
  }
  if (scrape.size === 0) throw new Error(`${url}: no persistence_requests series (has the server's metrics family changed?)`);
  return scrape;
}

export interface PersistenceBetween {
  writes: number;
  reads: number;
  /** Each operation's count between the two scrapes, busiest first. */
  byOperation: [string, number][];
}

export function persistenceBetween(from: PersistenceScrape, to: PersistenceScrape): PersistenceBetween {
  const byOperation = [...to]
    .map(([operation, count]): [string, number] => [operation, count - (from.get(operation) ?? 0)])
    .filter(([, count]) => count > 0)
    .sort((a, b) => b[1] - a[1]);
  const sum = (write: boolean) => byOperation.filter(([op]) => isWrite(op) === write).reduce((a, [, c]) => a + c, 0);
  return { writes: sum(true), reads: sum(false), byOperation };
}
