#!/usr/bin/env node
// Runs the compiled CLI when built (npm run build), else the TypeScript sources through tsx.
import { existsSync } from 'node:fs';
import { URL } from 'node:url';

const compiled = new URL('../dist/client/cli.js', import.meta.url);
if (existsSync(compiled)) {
  const { main } = await import(compiled.href);
  await main();
} else {
  const { register } = await import('tsx/esm/api');
  register();
  const { main } = await import(new URL('../src/client/cli.ts', import.meta.url).href);
  await main();
}
