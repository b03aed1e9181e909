// go/testdata/contract.json, what the Go client's tests compare with, is what the TypeScript client
// and model produce now (scripts/generate-go-testdata.ts writes it).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderGoContract } from '../../support/go-contract.js';

describe("the Go client's contract test data", () => {
  it('go/testdata/contract.json is current (run `npx tsx scripts/generate-go-testdata.ts`)', async () => {
    const onDisk = readFileSync(join(import.meta.dirname, '..', '..', '..', 'go', 'testdata', 'contract.json'), 'utf8');
    expect(onDisk).toBe(await renderGoContract());
  });
});
