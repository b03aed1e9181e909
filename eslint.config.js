// Lint rules that keep the deterministic parts deterministic: src/model, src/core and
// src/workflows run inside the Temporal workflow sandbox (or are imported by it), so they may not
// touch Node built-ins, I/O, clocks or randomness. A forgotten `await` anywhere is a real bug.
// And the layers (docs/architecture.md): src/kube, the Kubernetes client layer, knows nothing of
// Temporal nor of who calls it; the workflows reach Kubernetes only through activities; the
// contract table (src/contract/workflows.ts, zod schemas) stays out of the workflow code, which takes
// the names from src/contract/names.ts and the search attribute keys from src/contract/search-attributes.ts.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'coverage/', '.dev/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['eslint.config.js', 'bin/*.js'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // The product (src/, shipped in dist/ and the image) never depends on the local dev and test
    // servers under dev/, which are not built, installed or shipped.
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/dev/**', '@temporalio/testing'], message: 'product code may not import the dev harness or test-only packages' }] },
      ],
    },
  },
  {
    files: ['src/model/**/*.ts', 'src/core/**/*.ts', 'src/workflows/**/*.ts', 'src/observability/workflow/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltins.map((name) => ({ name, message: 'deterministic code may not use Node built-ins' })),
          // Types of the shell (the activities' signatures) are fine: they vanish at compile time.
          patterns: [
            { group: ['@kubernetes/*', '@temporalio/activity', '@temporalio/client', '@temporalio/worker'], message: 'no I/O in deterministic code' },
            {
              group: ['**/activities/*', '**/worker/*', '**/client/*', '**/cli/*', '**/harness/*'],
              message: 'deterministic code may not import the imperative shell',
              allowTypeImports: true,
            },
            { group: ['**/kube/*'], message: 'deterministic code may not import the Kubernetes client layer (src/kube): call an activity' },
            {
              group: ['**/contract/*', '!**/contract/names.js', '!**/contract/search-attributes.js', '!**/contract/summaries.js', '!**/contract/versioning.js'],
              message: 'the contract table loads zod: workflow code takes the names from src/contract/names.ts',
            },
          ],
        },
      ],
      'no-restricted-globals': [
        'error',
        { name: 'Date', message: 'no clocks in deterministic code' },
        { name: 'process', message: 'no process state in deterministic code' },
        { name: 'setTimeout', message: 'use workflow sleep, not timers' },
        { name: 'fetch', message: 'no I/O in deterministic code' },
      ],
      'no-restricted-properties': [
        'error',
        { object: 'Math', property: 'random', message: 'no randomness in deterministic code' },
        { object: 'Date', property: 'now', message: 'no clocks in deterministic code' },
      ],
    },
  },
  {
    // src/kube: the Kubernetes client layer. Temporal-free (KubeUnanswered is a plain error; the
    // activities make failures of it), and below every caller.
    files: ['src/kube/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['@temporalio/*'], message: 'src/kube knows nothing of Temporal: throw a plain error (KubeUnanswered), the activities make failures of it' },
            {
              group: ['**/activities/*', '**/workflows/*', '**/worker/*', '**/client/*', '**/cli/*', '**/contract/*', '**/observability/workflow/*'],
              message: 'src/kube is below its callers: it may not import them',
            },
          ],
        },
      ],
    },
  },
  {
    // The contract table: pure data and builders, used by the client and the worker.
    files: ['src/contract/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltins.map((name) => ({ name, message: 'the contract table does no I/O' })),
          patterns: [
            { group: ['@kubernetes/*', '@temporalio/client', '@temporalio/worker', '@temporalio/activity'], message: 'the contract table does no I/O' },
            { group: ['**/kube/*', '**/activities/*', '**/workflows/*', '**/worker/*', '**/client/*', '**/cli/*'], message: 'the contract table is below its callers' },
          ],
        },
      ],
    },
  },
  {
    // The typed client is what a caller embeds: it may not pull in the worker.
    files: ['src/client/dispatch-client.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { patterns: [{ group: ['**/worker/*', '**/cli/*'], message: 'the client may not import the worker or the CLI' }] }],
    },
  },
);
