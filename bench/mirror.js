#!/usr/bin/env node
// `node bench/mirror.js`: the mirror's figures against the emulator. A seed
// of 100,000 messages over 30 days (mixed statuses, countries, operators;
// those of the last day partly still under way)
// and 50 clicked links starts `smslink serve --db :memory:`; then the built
// bin (`npm run build` first) runs: the first full sync, an incremental sync
// after 1,000 new messages, `report delivery --by country` over the 100,000
// and `search` (medians of --runs runs). Each CLI run's peak RSS is read
// with getrusage (bench/max-rss.mjs). Writes bench/mirror-results.json.
// Everything lives in a temporary directory, removed at the end. Not CI.
//
//   node bench/mirror.js [--messages 100000] [--runs 5] [--concurrency 4]

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin/smslink.js');
const MAX_RSS = join(ROOT, 'bench/max-rss.mjs');
const KEY = 'bench-mirror-key-0123456789';
const { values: opts } = parseArgs({
  options: { messages: { type: 'string', default: '100000' }, runs: { type: 'string', default: '5' }, concurrency: { type: 'string', default: '4' } },
});
const COUNT = Number(opts.messages);
const RUNS = Number(opts.runs);

const tmp = mkdtempSync(join(tmpdir(), 'smslink-bench-mirror-'));
const children = new Set();
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
  rmSync(tmp, { recursive: true, force: true });
});
process.on('SIGINT', () => process.exit(130));

const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SMSLINK_') && k !== 'NODE_OPTIONS'));
Object.assign(env, { SMSLINK_CONFIG_DIR: join(tmp, 'config'), SMSLINK_DATA_DIR: join(tmp, 'data'), SMSLINK_CACHE_DIR: join(tmp, 'cache'), NO_COLOR: '1' });

/** Numbers of each country and operator the emulator knows (src/emulator/service/numbers.ts). */
const PREFIXES = ['7701', '7705', '7707', '7700', '7916', '7903', '7926', '7900', '99890', '99893', '38050', '38067', '5511', '1212', '4915'];
const FINAL = ['DELIVRD', 'DELIVRD', 'DELIVRD', 'DELIVRD', 'DELIVRD', 'DELIVRD', 'DELIVRD', 'UNDELIV', 'REJECTD', 'EXPIRED', 'DELETED'];
/** Messages of the last day are still under way as often as not, as on a live account; older ones are final. */
const RECENT = ['DELIVRD', 'ACCEPTD', 'ENQUEUD', 'PDLIVRD', 'UNDELIV', 'DELIVRD'];
const TEXTS = ['Your code is {n}', 'Spring sale: {n}% off shoes', 'Пакет {n} доставлен', 'Reminder: appointment {n} tomorrow', 'Order {n} is on its way'];

function when(i) {
  const ago = Math.floor(((COUNT - i) / COUNT) * 30 * 86_400);
  const pick = (list) => list[(i * 31 + Math.floor(i / PREFIXES.length)) % list.length];
  return { ago, status: pick(ago < 86_400 ? RECENT : FINAL) };
}

function seed() {
  const messages = Array.from({ length: COUNT }, (_, i) => ({
    to: `${PREFIXES[i % PREFIXES.length]}${String(1_000_000 + ((i * 7919) % 9_000_000)).padStart(7, '0')}`,
    text: TEXTS[i % TEXTS.length].replace('{n}', String(i)),
    ...when(i),
  }));
  const links = Array.from({ length: 50 }, (_, i) => ({ fullLink: `https://example.com/offer/${i}`, comment: `offer ${i}`, clicks: (i * 13) % 40 }));
  const file = join(tmp, 'seed.json');
  writeFileSync(file, JSON.stringify({ keys: [KEY], links, messages }));
  return file;
}

async function serve(seedFile) {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--db', ':memory:', '--seed', seedFile], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  const url = await new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      const m = /^listening on (\S+)/.exec(line);
      if (m) resolve(m[1]);
    });
    child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${err}`)));
  });
  return url;
}

/** Runs the bin; resolves with its wall time, peak RSS and stdout. */
async function smslink(url, args, extraEnv = {}) {
  const rssFile = join(tmp, 'rss');
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', MAX_RSS, BIN, '--base-url', url, ...args], {
    env: { ...env, ...extraEnv, SMSLINK_API_KEY: KEY, SMSLINK_BENCH_RSS_FILE: rssFile },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const [code] = await once(child, 'close');
  children.delete(child);
  const ms = performance.now() - started;
  if (code !== 0) throw new Error(`smslink ${args.join(' ')} exited ${code}: ${err.slice(-2000)}`);
  return { ms, rssMb: Number(readFileSync(rssFile, 'utf8')) / 1024, out };
}

async function send(url, count) {
  const body = (i) => `recipient=7701555${String(i).padStart(4, '0')}&text=${encodeURIComponent(`Late news ${i}`)}`;
  for (let i = 0; i < count; i += 20) {
    await Promise.all(
      Array.from({ length: Math.min(20, count - i) }, async (_, j) => {
        const res = await fetch(`${url}/service/Message/SendSmsMessage?output=json&api=v1&apiKey=${KEY}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: body(i + j) });
        const envelope = await res.json();
        if (envelope.code !== 0) throw new Error(JSON.stringify(envelope));
      }),
    );
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function repeated(url, args) {
  const runs = [];
  for (let i = 0; i < RUNS; i++) runs.push(await smslink(url, args));
  return { ms: median(runs.map((r) => r.ms)), rssMb: Math.max(...runs.map((r) => r.rssMb)), out: runs[0].out };
}

async function main() {
  const rows = [];
  const row = (what, r, budget) => {
    rows.push({ what, ms: Math.round(r.ms), rssMb: Math.round(r.rssMb * 10) / 10, budgetMs: budget ?? null, ...(r.note ? { summary: r.note } : {}) });
    console.log(`${what.padEnd(58)} ${String(Math.round(r.ms)).padStart(7)} ms  ${(Math.round(r.rssMb * 10) / 10).toFixed(1).padStart(6)} MB${budget ? `  (budget ${budget} ms)` : ''}`);
    if (r.note) console.log(`  ${JSON.stringify(r.note)}`);
  };
  const t0 = performance.now();
  const url = await serve(seed());
  console.log(`emulator seeded with ${COUNT} messages in ${Math.round(performance.now() - t0)} ms; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')} on ${cpus().length} cores`);
  const conc = ['--concurrency', opts.concurrency];
  const synced = (r) => ({ ...r, note: JSON.parse(r.out) });
  row(`first sync of ${COUNT} messages (${opts.concurrency} in flight)`, synced(await smslink(url, ['sync', '--json', ...conc])));
  await send(url, 1000);
  row('incremental sync after 1,000 new messages', synced(await smslink(url, ['sync', '--json', ...conc])));
  row(`report delivery --by country over ${COUNT} (median of ${RUNS})`, await repeated(url, ['report', 'delivery', '--by', 'country', '--since', '31d', '--json']), 1000);
  row(`search "appointment" (median of ${RUNS})`, await repeated(url, ['search', 'appointment', '--json']), 200);
  row(`search "shoes" --to 7701 (median of ${RUNS})`, await repeated(url, ['search', 'shoes', '--to', '7701', '--json']), 200);
  const nodeAlone = await repeated(url, ['--version']);
  row(`smslink --version, for the start-up in the rows above (median of ${RUNS})`, nodeAlone);
  const report = await smslink(url, ['report', 'delivery', '--by', 'country', '--since', '31d', '-o', 'table'], { COLUMNS: '80' });
  console.log(`\n${report.out}`);
  const result = { date: new Date().toISOString(), node: process.version, cores: cpus().length, loadavg: loadavg(), messages: COUNT, rows };
  writeFileSync(join(ROOT, 'bench/mirror-results.json'), `${JSON.stringify(result, null, 2)}\n`);
}

// The emulator child keeps the event loop alive: exit, and the exit handler stops it.
main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
