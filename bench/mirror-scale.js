#!/usr/bin/env node
// `node bench/mirror-scale.js`: how the mirror's work grows from 100,000 to
// 1,000,000 rows: the first sync against `smslink serve`, an incremental sync
// with 100,000 links and nothing new, and `report delivery`. Each run of the
// built bin (`npm run build` first) is measured by /usr/bin/time -v (wall,
// client CPU, peak RSS); requests and the deepest page come from its
// --verbose log. MIRROR_SCALE_CASES is the table `npm run bench -- --scale` takes.
//
//   node bench/mirror-scale.js [--only first-sync,links,report] [--sizes 100000,1000000] [--keep]
//     [--work DIR]   (a directory kept between runs: the seeded databases are made once)

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, createReadStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin/smslink.js');
const KEY = 'bench-mirror-key-0123456789';
const NODE = process.execPath;

/** Numbers of each country and operator the emulator knows (src/emulator/service/numbers.ts). */
const PREFIXES = ['7701', '7705', '7707', '7700', '7916', '7903', '7926', '7900', '99890', '99893', '38050', '38067', '5511', '1212', '4915'];
const FINAL = ['DELIVRD', 'DELIVRD', 'DELIVRD', 'DELIVRD', 'DELIVRD', 'DELIVRD', 'DELIVRD', 'UNDELIV', 'REJECTD', 'EXPIRED', 'DELETED'];
/** Messages of the last day are still under way as often as not, as on a live account; older ones are final. */
const RECENT = ['DELIVRD', 'ACCEPTD', 'ENQUEUD', 'PDLIVRD', 'UNDELIV', 'DELIVRD'];
const TEXTS = ['Your code is {n}', 'Spring sale: {n}% off shoes', 'Пакет {n} доставлен', 'Reminder: appointment {n} tomorrow', 'Order {n} is on its way'];

/** The work directory of one bench run: seeded databases, mirrors, config. Removed at exit unless --keep. */
export function workDir(keep = false, dir = undefined) {
  const tmp = dir ?? mkdtempSync(join(tmpdir(), 'smslink-bench-scale-'));
  const children = new Set();
  process.on('exit', () => {
    for (const child of children) child.kill('SIGKILL');
    if (!keep && !dir) rmSync(tmp, { recursive: true, force: true });
  });
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SMSLINK_') && k !== 'NODE_OPTIONS' && k !== 'NODE_EXTRA_CA_CERTS'));
  Object.assign(env, { SMSLINK_CONFIG_DIR: join(tmp, 'config'), SMSLINK_CACHE_DIR: join(tmp, 'cache'), NO_COLOR: '1', TZ: 'UTC' });
  return { tmp, children, env };
}

/** A seed of `count` messages over 30 days (mixed statuses, countries, operators) and `links` links, a tenth of them clicked. */
function seedFile(dir, count, links) {
  const file = join(dir, `seed-${count}-${links}.json`);
  const out = [];
  out.push(`{"keys":[${JSON.stringify(KEY)}],"links":[`);
  for (let i = 0; i < links; i++) out.push(`${i ? ',' : ''}${JSON.stringify({ fullLink: `https://example.com/offer/${i}`, comment: `offer ${i}`, clicks: i % 10 === 0 ? (i % 7) + 1 : 0 })}`);
  out.push('],"messages":[');
  for (let i = 0; i < count; i++) {
    const ago = Math.floor(((count - i) / count) * 30 * 86_400);
    const pick = (list) => list[(i * 31 + Math.floor(i / PREFIXES.length)) % list.length];
    const m = {
      to: `${PREFIXES[i % PREFIXES.length]}${String(1_000_000 + ((i * 7919) % 9_000_000)).padStart(7, '0')}`,
      text: TEXTS[i % TEXTS.length].replace('{n}', String(i)),
      ago,
      status: pick(ago < 86_400 ? RECENT : FINAL),
    };
    out.push(`${i ? ',' : ''}${JSON.stringify(m)}`);
  }
  out.push(']}');
  writeFileSync(file, out.join('\n'));
  return file;
}

/** Starts `smslink serve` on `db`; resolves with its URL, the count of requests per operation it answered, and stop(). */
export async function serve(work, db, extra = []) {
  const child = spawn(NODE, [BIN, 'serve', '--port', '0', '--db', db, '--api-key', KEY, ...extra], { env: work.env, stdio: ['ignore', 'pipe', 'pipe'] });
  work.children.add(child);
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  const ops = new Map();
  const url = await new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      const m = /^listening on (\S+)/.exec(line);
      if (m) resolve(m[1]);
      // serve's request log: `2025-01-15 10:00:02  Link/List  code 0  1.2 ms  key ...`
      const op = /^\S+ \S+ {2}(\S+) {2}/.exec(line)?.[1];
      if (op) ops.set(op, (ops.get(op) ?? 0) + 1);
    });
    child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${err}`)));
  });
  return {
    url,
    ops,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
      work.children.delete(child);
    },
  };
}

/** A database file holding the seed, made once per size and copied for each use (seeding 1M takes minutes). */
async function seededDb(work, count, links) {
  const made = join(work.tmp, `emulator-${count}-${links}.db`);
  if (!existsSync(made)) {
    const started = performance.now();
    const server = await serve(work, made, ['--seed', seedFile(work.tmp, count, links)]);
    await server.stop();
    process.stderr.write(`  (seeded ${count} messages and ${links} links in ${((performance.now() - started) / 1000).toFixed(0)} s)\n`);
  }
  const copy = join(work.tmp, `use-${Date.now()}-${Math.random().toString(36).slice(2)}.db`);
  copyFileSync(made, copy);
  return copy;
}

/**
 * Runs the bin under /usr/bin/time -v; resolves with wall ms, client CPU ms, peak RSS (MB), stdout, and
 * with --verbose among `args`, the list requests it made and the deepest page it asked for.
 */
export async function timed(work, dataDir, url, args, { countLines = false } = {}) {
  const timeFile = join(work.tmp, 'time.txt');
  const errFile = join(work.tmp, 'stderr.txt');
  const { openSync, closeSync } = await import('node:fs');
  const errFd = openSync(errFile, 'w');
  const started = performance.now();
  const child = spawn('/usr/bin/time', ['-v', '-o', timeFile, NODE, BIN, '--base-url', url, ...args], {
    env: { ...work.env, SMSLINK_API_KEY: KEY, SMSLINK_DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', errFd],
  });
  work.children.add(child);
  // A list of a million items is counted as it goes, never held: the bench must not be what grows.
  let out = '';
  let lines = 0;
  child.stdout.on('data', (d) => {
    if (countLines) for (let i = d.indexOf(10); i !== -1; i = d.indexOf(10, i + 1)) lines++;
    else out += d;
  });
  const [code] = await once(child, 'close');
  const ms = performance.now() - started;
  closeSync(errFd);
  work.children.delete(child);
  if (code !== 0) throw new Error(`smslink ${args.join(' ')} exited ${code}: ${readFileSync(errFile, 'utf8').slice(-2000)}`);
  const time = readFileSync(timeFile, 'utf8');
  const field = (name) => Number(new RegExp(`${name}: ([\\d.]+)`).exec(time)?.[1]);
  const requests = { list: 0, deepestPage: 0 };
  if (args.includes('--verbose')) {
    for await (const line of createInterface({ input: createReadStream(errFile) })) {
      if (/^> POST \S+\/(Message|Link)\/List\?/.test(line)) requests.list++;
      const page = /^> {3}pagination\[currentPage\] = (\d+)/.exec(line);
      if (page) requests.deepestPage = Math.max(requests.deepestPage, Number(page[1]));
    }
  }
  return {
    ms,
    cpuMs: (field('User time \\(seconds\\)') + field('System time \\(seconds\\)')) * 1000,
    rssMb: field('Maximum resident set size \\(kbytes\\)') / 1024,
    out,
    lines,
    requests,
  };
}

/** `smslink <noun> list --all` of `size` items, written as ndjson (one line an item) or json, counted and checked. */
async function listAll(work, size, noun, format) {
  const db = await seededDb(work, noun === 'message' ? size : 1000, noun === 'link' ? size : 50);
  const server = await serve(work, db);
  try {
    const r = await timed(work, join(work.tmp, 'data'), server.url, [noun, 'list', '--all', '-o', format], { countLines: true });
    // ndjson: a line an item; csv: a header, then a line an item (no text here holds a line break); json: a line a field.
    const items = format === 'ndjson' ? r.lines : format === 'csv' ? r.lines - 1 : undefined;
    if (items !== undefined && items !== size) throw new Error(`${noun} list --all printed ${items} items, not ${size}`);
    return { ...r, note: `${r.lines} lines of ${format}` };
  } finally {
    await server.stop();
    rmSync(db, { force: true });
  }
}

/** A case of `<noun> list --all -o <format>` against serve, at 100,000 and 1,000,000 items. */
function listCase(id, noun, format) {
  return { id, what: `\`${noun} list --all -o ${format}\` against serve`, sizes: [100_000, 1_000_000], budget: { ratio: 12, rssMb: 150 }, run: (work, size) => listAll(work, size, noun, format) };
}

/**
 * The cases of the scale bench, by name: each runs at every size it names and gives time, client CPU and
 * peak RSS; the table compares the largest size with the smallest (ratio) against its budgets (docs/performance.md).
 */
export const MIRROR_SCALE_CASES = [
  {
    id: 'first-sync',
    what: 'mirror: first sync against serve',
    sizes: [100_000, 1_000_000],
    budget: { ratio: 12, rssMb: 150 },
    async run(work, size) {
      const db = await seededDb(work, size, 50);
      const server = await serve(work, db);
      try {
        const data = join(work.tmp, `mirror-${size}`);
        rmSync(data, { recursive: true, force: true });
        const r = await timed(work, data, server.url, ['sync', '--json', '--verbose']);
        // The mirror is named by the base URL: the report case reads it under the same one.
        writeFileSync(join(data, 'bench-url'), server.url);
        const summary = JSON.parse(r.out);
        if (summary.messagesFetched !== size) throw new Error(`first sync fetched ${summary.messagesFetched} messages, not ${size}`);
        return { ...r, note: `${r.requests.list} list requests, deepest page ${r.requests.deepestPage}` };
      } finally {
        await server.stop();
        rmSync(db, { force: true });
      }
    },
  },
  {
    id: 'links',
    what: 'mirror: incremental sync, nothing new, links',
    sizes: [100_000],
    budget: { rssMb: 150 },
    async run(work, size) {
      const db = await seededDb(work, 1000, size);
      const server = await serve(work, db);
      try {
        const data = join(work.tmp, `mirror-links-${size}`);
        rmSync(data, { recursive: true, force: true });
        await timed(work, data, server.url, ['sync', '--json']);
        const r = await timed(work, data, server.url, ['sync', '--json', '--verbose']);
        // The mirror is named by the base URL: the report case reads it under the same one.
        writeFileSync(join(data, 'bench-url'), server.url);
        const summary = JSON.parse(r.out);
        if (summary.links !== size) throw new Error(`sync says ${summary.links} links, not ${size}`);
        return { ...r, note: `${r.requests.list} list requests, ${size / 10} links clicked` };
      } finally {
        await server.stop();
        rmSync(db, { force: true });
      }
    },
  },
  {
    id: 'report',
    what: 'mirror: report delivery --by day over the whole mirror',
    sizes: [100_000, 1_000_000],
    budget: { ratio: 12, rssMb: 150 },
    async run(work, size) {
      const data = join(work.tmp, `mirror-${size}`);
      if (!existsSync(join(data, 'bench-url'))) {
        // The first-sync case leaves its mirror behind; without it, one is made here, unmeasured.
        const db = await seededDb(work, size, 50);
        const server = await serve(work, db);
        try {
          await timed(work, data, server.url, ['sync', '--json']);
          writeFileSync(join(data, 'bench-url'), server.url);
        } finally {
          await server.stop();
          rmSync(db, { force: true });
        }
      }
      // Reports read the mirror alone: the base URL only names which mirror (serve has stopped).
      const r = await timed(work, data, readFileSync(join(data, 'bench-url'), 'utf8'), ['report', 'delivery', '--by', 'day', '--since', '40d', '--json']);
      const rows = JSON.parse(r.out);
      const messages = rows.reduce((s, row) => s + row.messages, 0);
      if (messages !== size) throw new Error(`report delivery counted ${messages} messages, not ${size}`);
      return { ...r, note: `${rows.length} days` };
    },
  },
  listCase('list-messages', 'message', 'json'),
  listCase('list-messages-csv', 'message', 'csv'),
  listCase('list-links', 'link', 'ndjson'),
  listCase('list-links-table', 'link', 'table'),
];

async function main() {
  const { values: opts } = parseArgs({ options: { only: { type: 'string' }, sizes: { type: 'string' }, keep: { type: 'boolean', default: false }, work: { type: 'string' } } });
  const only = opts.only?.split(',');
  const work = workDir(opts.keep, opts.work);
  mkdirSync(join(work.tmp, 'config'), { recursive: true });
  console.log(`mirror scale bench: ${cpus().length} cores, Node ${process.version}, load ${loadavg().map((l) => l.toFixed(1)).join(' ')}${opts.keep ? `, in ${work.tmp}` : ''}`);
  const results = [];
  for (const c of MIRROR_SCALE_CASES.filter((x) => !only || only.includes(x.id))) {
    const sizes = opts.sizes ? opts.sizes.split(',').map(Number).filter((s) => c.sizes.length > 1 || s === c.sizes[0]) : c.sizes;
    const runs = [];
    for (const size of sizes.length ? sizes : c.sizes) {
      const r = await c.run(work, size);
      runs.push({ size, ms: Math.round(r.ms), cpuMs: Math.round(r.cpuMs), rssMb: Math.round(r.rssMb * 10) / 10, note: r.note });
      console.log(`${c.what.padEnd(52)} ${String(size).padStart(8)}  ${(r.ms / 1000).toFixed(1).padStart(7)} s  cpu ${(r.cpuMs / 1000).toFixed(1).padStart(6)} s  ${r.rssMb.toFixed(1).padStart(6)} MB  ${r.note ?? ''}`);
    }
    const ratio = runs.length > 1 ? runs.at(-1).ms / runs[0].ms : null;
    if (ratio !== null) console.log(`${''.padEnd(52)} ratio ${ratio.toFixed(2)} (time), ${(runs.at(-1).cpuMs / runs[0].cpuMs).toFixed(2)} (client CPU); budget ${c.budget.ratio}x`);
    results.push({ id: c.id, what: c.what, budget: c.budget, runs, ratio });
  }
  return results;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
