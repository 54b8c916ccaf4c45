// Against an emulator that spoils 20% of its answers: every safe command
// still completes (retries), and a 1,000-row bulk send with reruns of its
// journal leaves each recipient's message in the service exactly once: rows
// whose answer was lost are looked up, none is sent twice, none is missing.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { withLetterInCode } from '../helpers/emulator.js';
import { runCli, tempDir } from '../helpers/run-cli.js';

const KEY = 'FaultKey0123456789abcdefABCDEF0123456789a';
let faulty: RunningEmulator;
let clean: RunningEmulator;

beforeAll(async () => {
  const db = join(tempDir(), 'faults.db');
  // Two emulators on one database: one answers through faults, the other counts what really happened.
  faulty = await startEmulator({ port: 0, db, apiKeys: [KEY], faultRate: 0.2, seed: 20261121, faults: 'latency:5-50ms,reset,500,502,503,code30,truncated' });
  clean = await startEmulator({ port: 0, db, apiKeys: [KEY] });
});
afterAll(async () => {
  await faulty.close();
  await clean.close();
});

const through = (url: string) => (args: string[]) => runCli(args, { env: { SMSLINK_BASE_URL: url, SMSLINK_API_KEY: KEY } });

describe('under a 20% fault rate', () => {
  it('every safe command completes with retries', async () => {
    const cleanCli = through(clean.url);
    const faultyCli = (args: string[]) => runCli(args, { env: { SMSLINK_BASE_URL: faulty.url, SMSLINK_API_KEY: KEY } });
    const link = await withLetterInCode(async () => JSON.parse((await cleanCli(['link', 'create', 'https://example.com/faults', '--comment', 'faulty'])).stdout) as { id: number; code: string });
    const msg = JSON.parse((await cleanCli(['message', 'send', '--to', '77013330001', '--text', 'faults'])).stdout) as { messageId: number; campaignId: number };
    const safe: string[][] = [
      ['link', 'get', String(link.id)],
      ['link', 'get', link.code],
      ['link', 'list', '--query', 'faulty'],
      ['link', 'stats', String(link.id), '--type', 'daily'],
      ['link', 'campaign', String(msg.campaignId)],
      ['link', 'update', String(link.id), '--comment', 'faulty still'],
      ['message', 'status', String(msg.messageId)],
      ['message', 'list', '--to', '77013330001'],
    ];
    let runs = 0;
    for (let round = 0; round < 8; round++) {
      for (const args of safe) {
        const r = await faultyCli(args);
        expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
        runs += 1;
      }
    }
    const extra = await faultyCli(['link', 'delete', String(link.id)]);
    expect(extra.code).toBe(0);
    console.log(`safe commands under faults: ${runs + 1} runs, all exit 0`);
  });

  it('a 1,000-row bulk send and reruns: each message exactly once, nothing left unknown', async () => {
    const ROWS = 1000;
    const file = join(tempDir(), 'sms.csv');
    const numbers = Array.from({ length: ROWS }, (_, i) => `7703${String(1000000 + i)}`);
    writeFileSync(file, `recipient\n${numbers.join('\n')}\n`);
    const args = ['message', 'send', '--from-file', file, '--text', 'fault drill', '--concurrency', '16', '-o', 'ndjson'];
    const perRun: string[] = [];
    let code = -1;
    let found = 0;
    // Rerun until it exits 0: failed rows (503 and code 30 past the retries, lookups that failed) are sent again.
    while (code !== 0 && perRun.length < 6) {
      const r = await runCli(args, { env: { SMSLINK_BASE_URL: faulty.url, SMSLINK_API_KEY: KEY } });
      code = r.code;
      const rows = r.stdout.trim() ? r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { state: string }) : [];
      found += Number(/\((\d+) of them found by a lookup/.exec(r.stderr)?.[1] ?? 0);
      perRun.push(`run ${perRun.length + 1}: exit ${code}, ${['done', 'failed', 'unknown'].map((st) => `${rows.filter((x) => x.state === st).length} ${st}`).join(', ')}`);
    }
    expect(code).toBe(0);

    const listed = await through(clean.url)(['message', 'list', '--text', 'fault drill', '--all', '-o', 'ndjson', '--fields', 'to']);
    const counts = new Map<string, number>();
    for (const line of listed.stdout.trim().split('\n')) {
      const to = String((JSON.parse(line) as { to: string }).to);
      counts.set(to, (counts.get(to) ?? 0) + 1);
    }
    console.log([...perRun, `emulator: ${counts.size} recipients, ${found} rows settled by a lookup after their answer was lost`].join('\n'));
    numbers.forEach((n, i) => expect(counts.get(n), `recipient ${n} (row ${i + 2})`).toBe(1));
    expect(counts.size).toBe(ROWS);
    expect(found).toBeGreaterThan(0);
    const { readFileSync } = await import('node:fs');
    expect(readFileSync(`${file}.journal`, 'utf8')).not.toContain(KEY);
  });
});
