#!/usr/bin/env node
// `node bench/emulator-paging.js`: how the emulator's Link/List and
// Message/List answer as the account grows. For each size (default 10,000
// and 500,000 rows of each) a database file is filled by SQL and
// `smslink serve --db <file>` started on it (`npm run build` first); each
// case is asked of every size in turn, one keep-alive connection each: the
// first page (p50 of --samples requests) and pages deep in a walk (the page
// at 55% of the way, then the --samples pages after it, each timed). Prints
// the p50s and the ratio of the largest size to the smallest (budget: within
// 2x), and, outside the budget, a deep page no earlier page led to and the
// first page after a write. All in a temporary directory. Not CI.
//
//   node bench/emulator-paging.js [--sizes 10000,500000] [--samples 41] [--page-size 100]

import { createHash } from 'node:crypto';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin/smslink.js');
const KEY = 'bench-paging-key-0123456789';
const OTHER_KEY = 'bench-paging-other-key-0123';
const { values: opts } = parseArgs({
  options: { sizes: { type: 'string', default: '10000,500000' }, samples: { type: 'string', default: '41' }, 'page-size': { type: 'string', default: '100' } },
});
const SIZES = opts.sizes.split(',').map(Number);
const SAMPLES = Number(opts.samples);
const PAGE_SIZE = Number(opts['page-size']);
if (SIZES.some((n) => !Number.isInteger(n) || n < PAGE_SIZE * 4)) throw new Error(`--sizes: each must be a whole number of at least ${PAGE_SIZE * 4}`);

const { Database } = await import(join(ROOT, 'dist/emulator/store/database.js'));
const Libsql = createRequire(import.meta.url)('libsql');

const tmp = mkdtempSync(join(tmpdir(), 'smslink-bench-paging-'));
const children = new Set();
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
  rmSync(tmp, { recursive: true, force: true });
});
process.on('SIGINT', () => process.exit(130));
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SMSLINK_') && k !== 'NODE_OPTIONS'));
Object.assign(env, { SMSLINK_CONFIG_DIR: join(tmp, 'config'), SMSLINK_DATA_DIR: join(tmp, 'data'), SMSLINK_CACHE_DIR: join(tmp, 'cache'), NO_COLOR: '1' });

const STATUSES = ['DELIVRD', 'DELIVRD', 'DELIVRD', 'DELIVRD', 'DELIVRD', 'UNDELIV', 'REJECTD', 'EXPIRED'];
const T0 = Date.UTC(2026, 0, 1);

/**
 * A database of `n` links and `n` messages for the bench's key, and a few of
 * another account's, written by SQL (recursive CTEs) in one transaction.
 * Ties on purpose: two links a second, 40 click counts, 8 statuses; one
 * message in 50 has no status time (sorted NULLs).
 */
function fill(file, n) {
  Database.open(file).close();
  const db = new Libsql(file);
  const now = Date.now();
  const account = (key) => {
    db.prepare('INSERT INTO accounts (key_hash, created_ts) VALUES (?, ?)').run(createHash('sha256').update(key).digest('hex'), now);
    return db.prepare('SELECT id FROM accounts WHERE key_hash = ?').get(createHash('sha256').update(key).digest('hex')).id;
  };
  const statuses = `json_extract('${JSON.stringify(STATUSES)}', '$[' || (i % ${STATUSES.length}) || ']')`;
  db.transaction(() => {
    for (const [key, count] of [[KEY, n], [OTHER_KEY, 1000]]) {
      const a = account(key);
      db.prepare(
        `WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ?)
         INSERT INTO links (account_id, code, full_link, status, moderator_status, comment, click_cnt, create_ts, update_ts)
         SELECT ?, 'b' || ? || 'x' || i, 'https://example.com/offer/' || i, CASE WHEN i % 10 = 0 THEN 0 ELSE 1 END, 1, 'offer ' || (i % 100),
                (i * 13) % 40, ? + (i / 2) * 1000, ? + (i / 2) * 1000 FROM s`,
      ).run(count, a, a, T0, T0);
      db.prepare(
        `WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ?)
         INSERT INTO messages (account_id, campaign_id, uuid, sender, recipient, text, seg_num, seg_price, status,
           start_send_ts, status_update_ts, campaign_status, campaign_create_ts, campaign_sent_ts, validity_min,
           t0, s0, c0, t1, s1, c1, next_ts)
         SELECT ?, i, 'u-' || i, 'SMSLINK', '7701' || (1000000 + (i * 7919) % 9000000), 'Your code is ' || i, 1 + i % 3, 0.01, ${statuses},
                ? + i * 1000, CASE WHEN i % 50 = 0 THEN NULL ELSE ? + i * 1000 + (i % 7) * 60000 END, 'DONE', ? + i * 1000, ? + i * 1000, 1440,
                ? + i * 1000, 'NEW', 'AUTO_READY_FOR_SEND', ? + i * 1000, 'ENQUEUD', 'RUNNING', NULL FROM s`,
      ).run(count, a, T0, T0, T0, T0, T0, T0);
    }
  })();
  db.close();
}

async function serve(file) {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--db', file, '--api-key', KEY, '--api-key', OTHER_KEY, '-q'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
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
  return {
    url,
    stop: async () => {
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });


/** One /service/ request (a form body); resolves with the envelope's data and the time it took in ms. */
function call(url, path, form) {
  const body = new URLSearchParams({ apiKey: KEY, ...form }).toString();
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request(`${url}/service/${path}`, { method: 'POST', agent, headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body) } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const ms = performance.now() - started;
        const answer = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        if (answer.code !== 0) reject(new Error(`${path}: code ${answer.code}: ${answer.message}`));
        else resolve({ data: answer.data, ms });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const CASES = [
  { name: 'Link/List, newest first', path: 'link/list', form: {} },
  { name: 'Link/List, sort[clickCnt]=DESC', path: 'link/list', form: { 'sort[clickCnt]': 'DESC' } },
  { name: 'Link/List, criteria[status]=1', path: 'link/list', form: { 'criteria[status]': '1' } },
  { name: 'Message/List, newest first', path: 'message/list', form: {} },
  { name: 'Message/List, sort[id]=ASC (sync)', path: 'message/list', form: { 'sort[id]': 'ASC' } },
  { name: 'Message/List, sort[statusUpdateTs]=ASC', path: 'message/list', form: { 'sort[statusUpdateTs]': 'ASC' } },
  { name: 'Message/List, criteria[status]=DELIVRD', path: 'message/list', form: { 'criteria[status]': 'DELIVRD' } },
];

const page = (c, p) => ({ ...c.form, 'pagination[pageSize]': String(PAGE_SIZE), 'pagination[currentPage]': String(p) });

/**
 * Each case on every emulator in lockstep, one request to each in turn, so
 * that a busy machine weighs on every size alike.
 */
async function measure(urls) {
  const out = urls.map(() => []);
  const each = (fn) => Promise.all(urls.map(async (url, i) => fn(url, i)));
  const inTurn = async (fn) => {
    const got = [];
    for (let i = 0; i < urls.length; i++) got.push(await fn(urls[i], i));
    return got;
  };
  for (const c of CASES) {
    const pages = await each(async (url) => Math.ceil(Number((await call(url, c.path, page(c, 0))).data.totalItemCount) / PAGE_SIZE));
    const first = urls.map(() => []);
    const deep = urls.map(() => []);
    const cold = urls.map(() => []);
    const written = urls.map(() => []);
    for (let s = 0; s < SAMPLES; s++) await inTurn(async (url, i) => first[i].push((await call(url, c.path, page(c, 0))).ms));
    const starts = pages.map((n) => Math.floor(n * 0.55));
    await inTurn((url, i) => call(url, c.path, page(c, starts[i])));
    for (let s = 1; s <= SAMPLES; s++) {
      await inTurn(async (url, i) => {
        if (starts[i] + s < pages[i]) deep[i].push((await call(url, c.path, page(c, starts[i] + s))).ms);
      });
    }
    // Information: pages no page before has led to (descending, far apart), and the first page after a write.
    for (let s = 0; s < 5; s++) await inTurn(async (url, i) => cold[i].push((await call(url, c.path, page(c, pages[i] - 2 - s * Math.floor(pages[i] / 12)))).ms));
    for (let s = 0; s < 5; s++) {
      await inTurn(async (url, i) => {
        if (c.path === 'link/list') await call(url, 'link/create', { 'data[fullLink]': `https://example.com/new/${s}` });
        else await call(url, 'message/sendsmsmessage', { recipient: '77010000000', text: `new ${s}` });
        written[i].push((await call(url, c.path, page(c, 0))).ms);
      });
    }
    urls.forEach((_, i) => out[i].push({ first: median(first[i]), deep: median(deep[i]), cold: median(cold[i]), written: median(written[i]) }));
  }
  return out;
}

const fmt = (ms) => ms.toFixed(2).padStart(7);
const emulators = [];
let measured;
try {
  for (const n of SIZES) {
    const file = join(tmp, `paging-${n}.db`);
    const filling = performance.now();
    fill(file, n);
    process.stderr.write(`${n.toLocaleString('en')} rows of each written in ${((performance.now() - filling) / 1000).toFixed(1)} s\n`);
    emulators.push(await serve(file));
  }
  measured = await measure(emulators.map((e) => e.url));
} finally {
  await Promise.all(emulators.map((e) => e.stop()));
  agent.destroy();
}
const results = new Map(SIZES.map((n, i) => [n, measured[i]]));

const small = SIZES[0];
const large = SIZES.at(-1);
console.log(`Link/List and Message/List p50 in ms, pageSize ${PAGE_SIZE}, \`serve --db <file>\`; ${cpus().length} CPUs, load ${loadavg()[0].toFixed(2)}`);
console.log(`${'case'.padEnd(40)} ${SIZES.map((n) => `first@${n / 1000}k`.padStart(11) + `deep@${n / 1000}k`.padStart(11)).join('')}  first x   deep x`);
for (let i = 0; i < CASES.length; i++) {
  const row = SIZES.map((n) => results.get(n)[i]);
  const a = results.get(small)[i];
  const b = results.get(large)[i];
  console.log(`${CASES[i].name.padEnd(40)} ${row.map((r) => `${fmt(r.first)}    ${fmt(r.deep)}    `).join('')}  ${(b.first / a.first).toFixed(2).padStart(6)}  ${(b.deep / a.deep).toFixed(2).padStart(6)}`);
}
console.log('\nOutside the budget (information): a deep page no earlier page led to, and the first page after a write');
console.log(`${'case'.padEnd(40)} ${SIZES.map((n) => `cold@${n / 1000}k`.padStart(11) + `write@${n / 1000}k`.padStart(12)).join('')}`);
for (let i = 0; i < CASES.length; i++) {
  console.log(`${CASES[i].name.padEnd(40)} ${SIZES.map((n) => `${fmt(results.get(n)[i].cold)}    ${fmt(results.get(n)[i].written)}     `).join('')}`);
}
