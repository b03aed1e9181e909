// The bench's count of the Temporal server's store work (bench/temporal-metrics.ts): which
// persistence operations are writes, and what two scrapes of the server's /metrics say happened
// between them. A miscount here would misstate "Temporal writes per Watch per hour".
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isWrite, persistenceBetween, scrapePersistence } from '../../../bench/temporal-metrics.js';

let body = '';
const server = createServer((_req, res) => res.end(body));
let url = '';
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const exposition = (counts: Record<string, number>) =>
  [
    '# HELP persistence_requests persistence_requests counter',
    '# TYPE persistence_requests counter',
    ...Object.entries(counts).flatMap(([operation, count]) => [
      // The same operation from two services: summed.
      `persistence_requests{operation="${operation}",service_name="history"} ${count - 1}`,
      `persistence_requests{operation="${operation}",service_name="matching"} 1`,
    ]),
    'persistence_latency_count{operation="UpdateWorkflowExecution"} 999',
  ].join('\n');

describe("the Temporal server's persistence requests", () => {
  it('names the operations that change the store as writes, and the rest as reads', () => {
    for (const op of ['UpdateWorkflowExecution', 'AppendHistoryNodes', 'CreateTasks', 'CompleteHistoryTask', 'RangeCompleteHistoryTasks', 'DeleteWorkflowExecution', 'UpsertClusterMembership'])
      expect(isWrite(op), op).toBe(true);
    for (const op of ['GetWorkflowExecution', 'ReadHistoryBranch', 'GetHistoryTasks', 'ListNamespaces', 'GetTasks'])
      expect(isWrite(op), op).toBe(false);
  });

  it('sums each operation over its series, and two scrapes give the writes and reads between them', async () => {
    body = exposition({ UpdateWorkflowExecution: 10, AppendHistoryNodes: 5, GetWorkflowExecution: 7 });
    const from = await scrapePersistence(url);
    expect(from.get('UpdateWorkflowExecution')).toBe(10);
    body = exposition({ UpdateWorkflowExecution: 40, AppendHistoryNodes: 5, GetWorkflowExecution: 9, CreateTasks: 3 });
    const between = persistenceBetween(from, await scrapePersistence(url));
    expect(between.writes).toBe(30 + 3);
    expect(between.reads).toBe(2);
    expect(between.byOperation).toEqual([
      ['UpdateWorkflowExecution', 30],
      ['CreateTasks', 3],
      ['GetWorkflowExecution', 2],
    ]);
  });

  it('fails, rather than counting nothing, when the server exposes no persistence_requests', async () => {
    body = 'go_goroutines 12\n';
    await expect(scrapePersistence(url)).rejects.toThrow(/no persistence_requests/);
  });
});
