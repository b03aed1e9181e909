// Headless Chromium for the Temporal UI test: Debian's package (scripts/ensure-chromium.sh installs
// it), driven by playwright-core, so nothing is downloaded. The flags keep it off the network:
// the test machine has none besides loopback, and Chromium otherwise stalls on refused
// connections to its update, sync and field-trial services.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { devDir, repoRoot } from '../../../dev/harness/paths.js';

export const CHROMIUM = '/usr/bin/chromium';

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface Browser {
  page: Page;
  close(): Promise<void>;
}

/** One page in a fresh profile (removed on close), sized for README screenshots; `args`: more flags. */
export async function openBrowser(args: string[] = []): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'dk-chromium-'));
  // playwright-core takes the profile here, not as --user-data-dir.
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [...FLAGS, ...args],
    viewport: { width: 1600, height: 820 },
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    page,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Where a screenshot goes: the committed docs/img/ only with UPDATE_SCREENSHOTS=1, so that test
 * runs leave the tree clean; .dev/screenshots/ otherwise.
 */
export function screenshotPath(file: string): string {
  const dir =
    process.env.UPDATE_SCREENSHOTS === '1' ? join(repoRoot, 'docs', 'img') : join(devDir, 'screenshots');
  mkdirSync(dir, { recursive: true });
  return join(dir, file);
}
