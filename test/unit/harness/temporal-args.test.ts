import { describe, expect, it } from 'vitest';
import { dynamicConfigArgs } from '../../../dev/harness/temporal.js';

describe('the dev server dynamic config (docs/performance.md)', () => {
  it('passes each value as `--dynamic-config-value KEY=<JSON>`, the form `temporal server start-dev` reads', () => {
    expect(dynamicConfigArgs({ 'a.b': 5, 'c.d': true })).toEqual(['--dynamic-config-value', 'a.b=5', '--dynamic-config-value', 'c.d=true']);
  });

});
