// Lint rules that keep the deterministic parts deterministic: src/model, src/core and
// src/workflows run inside the Temporal workflow sandbox (or are imported by it), so they may not
// touch Node built-ins, I/O, clocks or randomness. A forgotten `await` anywhere is a real bug.
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
              group: ['**/activities/*', '**/worker/*', '**/client/*', '**/harness/*'],
              message: 'deterministic code may not import the imperative shell',
              allowTypeImports: true,
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
);
