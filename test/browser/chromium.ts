// Headless Chromium from Debian's `chromium` package, driven by
// playwright-core (which downloads no browser of its own): a fresh, empty
// profile per launch, no network of its own (background fetches, updates,
// sync off). .ci/run installs the package when it is missing.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** `args`: more command-line switches (e.g. --host-resolver-rules, to give a test host name an address). */
export async function launchChromium(args: string[] = []): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium package (apt-get install -y chromium); .ci/run does`);
  const profile = mkdtempSync(join(tmpdir(), 'smslink-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync', ...args],
    viewport: { width: 1440, height: 900 },
    // Below the test's hook timeout, so a start that fails says why rather than time out.
    timeout: 150_000,
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
