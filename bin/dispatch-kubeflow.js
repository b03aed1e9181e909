#!/usr/bin/env node
// In a checkout, runs the TypeScript sources through tsx, so a stale build never answers; in an
// image or package without sources, runs the compiled CLI (npm run build).
import { existsSync } from 'node:fs';
import { URL } from 'node:url';

const source = new URL('../src/cli/cli.ts', import.meta.url);
const compiled = new URL('../dist/cli/cli.js', import.meta.url);
let entry = compiled;
if (existsSync(source)) {
  try {
    const { register } = await import('tsx/esm/api');
    register();
    entry = source;
  } catch {
    // tsx is a dev dependency: without it, the build is all there is.
  }
}
const { main } = await import(entry.href);
await main();
