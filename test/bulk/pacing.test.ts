// How fast a bulk run sends: at most --concurrency requests in flight, at
// most --rate per second as the service sees them (the Limiter itself:
// limiter.test.ts).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { runCli, tempDir } from '../helpers/run-cli.js';
import { BULK_KEY, csvOf, links, useBulkService } from '../helpers/bulk-files.js';

const bulk = useBulkService();
const { file } = bulk;

describe('--concurrency', () => {
  it('keeps at most --concurrency requests in flight', async () => {
    bulk.svc.delayMs = 20;
    const input = file('links.csv', csvOf(links(40)));
    await runCli(['link', 'create', '--from-file', input, '--concurrency', '3'], { env: bulk.env });
    expect(bulk.svc.inFlight.max).toBe(3);
  });

});

describe('--rate at the service (emulator)', () => {
  const emulators: RunningEmulator[] = [];
  afterEach(async () => {
    for (const e of emulators.splice(0)) await e.close();
  });

  it('--rate 20 over 60 rows: no one-second window at the service holds more than 20 requests', async () => {
    const arrivals: number[] = [];
    const emu = await startEmulator({
      port: 0,
      db: ':memory:',
      apiKeys: [BULK_KEY],
      hooks: {
        before(x) {
          if (x.path.toLowerCase() === 'link/create') arrivals.push(performance.now());
          return false;
        },
      },
    });
    emulators.push(emu);
    const input = join(tempDir(), 'links.csv');
    writeFileSync(input, `fullLink\n${Array.from({ length: 60 }, (_, i) => `https://example.com/rate/${i}`).join('\n')}\n`);
    const r = await runCli(['link', 'create', '--from-file', input, '--rate', '20', '--concurrency', '8'], { env: { SMSLINK_BASE_URL: emu.url, SMSLINK_API_KEY: BULK_KEY } });
    expect(r.code).toBe(0);
    expect(arrivals).toHaveLength(60);
    // Any window of one second holding 21 requests would have its first and 21st less than a second apart.
    // A lower bound that a busy machine cannot break: the 21st starts a second after the 1st was answered,
    // which is after the 1st arrived; slowness only moves them further apart.
    const gaps = arrivals.slice(20).map((t, i) => t - arrivals[i]);
    console.log(`--rate 20: the closest 21 requests at the service spanned ${Math.min(...gaps).toFixed(1)} ms`);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(1000);
  });
});
