// Writes go/testdata/contract.json: what the TypeScript client starts and how the worker's failures
// look on the wire, for the Go client's tests. A unit test fails when it is stale.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderGoContract } from '../test/support/go-contract.js';

const file = join(import.meta.dirname, '..', 'go', 'testdata', 'contract.json');
writeFileSync(file, await renderGoContract());
console.log('wrote go/testdata/contract.json');
