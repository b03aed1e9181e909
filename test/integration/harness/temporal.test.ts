// The run's Temporal dev server: reachable from a test file, with the workflows' search attributes.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { SearchAttributes } from '../../../src/contract/names.js';
import { stackInfo } from '../support/context.js';
import { temporalEnv } from '../support/temporal.js';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await temporalEnv();
});
afterAll(async () => env?.teardown());

it('registers the search attributes the workflows set, all Keyword', async () => {
  const { customAttributes } = await env.connection.operatorService.listSearchAttributes({ namespace: stackInfo().temporal.namespace });
  for (const name of Object.values(SearchAttributes)) expect(customAttributes?.[name], name).toBeDefined();
  // INDEXED_VALUE_TYPE_KEYWORD
  expect(new Set(Object.values(SearchAttributes).map((n) => customAttributes?.[n]))).toEqual(new Set([2]));
});

it('gives the temporal CLI path for tests that drive it', () => {
  expect(stackInfo().temporal.cli).toMatch(/temporal$/);
});
