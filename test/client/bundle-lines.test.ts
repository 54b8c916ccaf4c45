// What a library user's terminal shows when an error of smslink goes
// uncaught in their script: Node prints the line of the bundle it was thrown
// on, so that line must be short, not the whole minified file (it was tens
// of kilobytes of code above the error). The bundles are those global-setup
// built, as the package ships them.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const BUNDLE = fileURLToPath(new URL('../../dist/bundle/', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'smslink-uncaught-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** stderr of a CommonJS script left with an unhandled rejection. */
function uncaught(script: string): string {
  const file = join(dir, 'app.cjs');
  writeFileSync(file, script);
  const { stderr, status } = spawnSync(process.execPath, [file], { encoding: 'utf8', timeout: 30_000 });
  expect(status).toBe(1);
  return stderr;
}

const longest = (text: string) => Math.max(...text.split('\n').map((line) => line.length));

describe('an uncaught error of the library', () => {
  it("shows the client's error under a line of code short enough to read", () => {
    const stderr = uncaught(`const { SmsLinkClient } = require(${JSON.stringify(join(BUNDLE, 'index.cjs'))});
      new SmsLinkClient({ baseUrl: 'https://api.example.com', apiKey: 'k'.repeat(40) }).createLink({ fullLink: 'nope' });\n`);
    expect(stderr).toContain('ValidationError: Link/Create: fullLink must be a URL');
    expect(longest(stderr)).toBeLessThan(300);
  });

  it("shows the emulator's error alike", () => {
    const stderr = uncaught(`const { startEmulator } = require(${JSON.stringify(join(BUNDLE, 'emulator.cjs'))});
      startEmulator({ port: -1 });\n`);
    expect(stderr).toContain('RangeError: port must be a number from 0 to 65535 (got -1)');
    expect(longest(stderr)).toBeLessThan(300);
  });
});
