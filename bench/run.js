#!/usr/bin/env node
// `npm run bench`: every budget of docs/performance.md, each measured against a reference
// taken in the same run on the same machine (a shared 2-core machine is too
// noisy for absolute numbers). Start-up rows are medians of --runs runs
// (default 40) after a warm-up, timed by a Node loop that interleaves
// reference and target (or by hyperfine: --timer hyperfine); throughput
// rows use autocannon; the inspector rows, headless Chromium (Debian's, through
// playwright-core). Prints a table, writes bench/results.json. Starts and
// stops its own emulators (`smslink serve`) and a bare node:http server, in
// a temporary directory that also holds the config and sandbox
// (SMSLINK_CONFIG_DIR, SMSLINK_DATA_DIR), and the compile cache
// (SMSLINK_CACHE_DIR, filled by the warm-up runs; the `cold` row starts every
// run without one), and removes all of it at the end, on failure and on
// Ctrl-C too. Not part of CI.
//
//   npm run bench [-- --runs 40] [--duration 10] [--only version,help,...] [--timer node|hyperfine|instructions] [--keep-node-env]
//   npm run bench -- --scale [--sizes 100000,1000000] [--only bulk-run,...]   (growth: see scaleMain)

/* global document -- the page's, in functions Chromium runs (page.evaluate, waitForFunction) */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, platform, release, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin/smslink.js');
const MAX_RSS = join(ROOT, 'bench/max-rss.mjs');
const ONE_REQUEST = join(ROOT, 'bench/one-request.cjs');
const KEY = 'bench-key-0123456789';
const NODE = process.execPath;

const { values: opts } = parseArgs({
  options: {
    runs: { type: 'string', default: '40' },
    duration: { type: 'string', default: '10' },
    only: { type: 'string' },
    timer: { type: 'string' },
    'keep-node-env': { type: 'boolean', default: false },
    scale: { type: 'boolean', default: false },
    sizes: { type: 'string' },
  },
});
const RUNS = Number(opts.runs);
const DURATION = Number(opts.duration);
if (!Number.isInteger(RUNS) || RUNS < 10) throw new Error('--runs must be a whole number of at least 10');

// ---------------------------------------------------------------- housekeeping

const tmp = mkdtempSync(join(tmpdir(), 'smslink-bench-'));
const children = new Set();
let cleaned = false;
/** Chromium, started by the first inspector row (browser()) and closed with everything else. */
let chromium;

function cleanup() {
  if (cleaned) return;
  cleaned = true;
  chromium?.process?.kill('SIGKILL');
  for (const child of children) child.kill('SIGKILL');
  rmSync(tmp, { recursive: true, force: true });
}
process.on('exit', cleanup);
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    cleanup();
    process.exit(130);
  });
}

/**
 * The environment of every run, reference included: nothing from the user's
 * config, sandbox or SMSLINK_* variables, and by default none of the
 * variables that change Node's own start-up. NODE_EXTRA_CA_CERTS makes every
 * Node process read and parse a CA bundle before it starts (about 50 ms on
 * the machine of the README), which would hide smslink's own cost behind a
 * slower `node -e 0`; --keep-node-env measures with them.
 */
const NODE_ENV_VARS = ['NODE_OPTIONS', 'NODE_EXTRA_CA_CERTS'];
const dropped = opts['keep-node-env'] ? [] : NODE_ENV_VARS.filter((k) => process.env[k] !== undefined);
const baseEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SMSLINK_') && !dropped.includes(k)));
Object.assign(baseEnv, { SMSLINK_CONFIG_DIR: join(tmp, 'config'), SMSLINK_DATA_DIR: join(tmp, 'data'), SMSLINK_CACHE_DIR: join(tmp, 'cache'), NO_COLOR: '1' });

function track(child) {
  children.add(child);
  child.on('exit', () => children.delete(child));
  return child;
}

/** Starts a server process that prints `listening on <url>` first; resolves with its URL and a stop(). */
async function startServer(args, env = baseEnv) {
  const child = track(spawn(NODE, args, { env, stdio: ['ignore', 'pipe', 'pipe'] }));
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  const lines = createInterface({ input: child.stdout });
  const url = await new Promise((resolve, reject) => {
    lines.on('line', (line) => {
      const m = /^listening on (\S+)/.exec(line);
      if (!m) return;
      // What the server prints from here on (serve's request log) is drained unread: splitting it
      // into lines would take this process's CPU, which autocannon shares.
      lines.close();
      child.stdout.resume();
      resolve(m[1]);
    });
    child.on('exit', (code) => reject(new Error(`${args.join(' ')} exited ${code} before listening: ${err}`)));
  });
  return {
    url,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

const startEmulator = () => startServer([BIN, 'serve', '--port', '0', '--db', ':memory:', '--api-key', KEY]);

/** Runs the bin to completion; stdout is counted (lines) or dropped. */
async function smslink(args, env = {}, { countLines = false, rssFile } = {}) {
  const node = rssFile ? [NODE, '--import', MAX_RSS] : [NODE];
  const started = performance.now();
  const child = track(
    spawn(node[0], [...node.slice(1), BIN, ...args], {
      env: { ...baseEnv, ...env, ...(rssFile ? { SMSLINK_BENCH_RSS_FILE: rssFile } : {}) },
      stdio: ['ignore', countLines ? 'pipe' : 'ignore', 'pipe'],
    }),
  );
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  let lines = 0;
  if (countLines) createInterface({ input: child.stdout }).on('line', () => lines++);
  const [code] = await once(child, 'close');
  const ms = performance.now() - started;
  if (code !== 0) throw new Error(`smslink ${args.join(' ')} exited ${code}: ${err.slice(-2000)}`);
  const [maxRssKb, cpuMicros] = rssFile ? readFileSync(rssFile, 'utf8').split(' ').map(Number) : [];
  return { ms, lines, maxRssMb: rssFile ? maxRssKb / 1024 : undefined, cpuMs: rssFile ? cpuMicros / 1000 : undefined };
}

/** One request to the emulator over HTTP, as the client sends it; returns the envelope. */
async function call(url, operation, body) {
  const res = await fetch(`${url}/service/${operation}?output=json&api=v1&apiKey=${KEY}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
    body,
  });
  const envelope = await res.json();
  if (envelope.code !== 0) throw new Error(`${operation}: ${JSON.stringify(envelope)}`);
  return envelope;
}

/** autocannon against one request; resolves with the mean requests per second. */
async function cannon(url, { path = '/', method = 'GET', body, connections = 10, duration = DURATION, amount } = {}) {
  const result = await autocannon({
    url: `${url}${path}`,
    method,
    body,
    headers: body ? { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' } : {},
    connections,
    ...(amount ? { amount } : { duration }),
  });
  if (result.errors || result.non2xx || result.timeouts) {
    throw new Error(`autocannon ${path}: ${result.errors} errors, ${result.non2xx} non-2xx, ${result.timeouts} timeouts`);
  }
  return result.requests.average;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
};

// ---------------------------------------------------------------- start-up

// The interleaved loop by default: hyperfine times the target's runs in one block and the reference's in
// another, so a machine that drifts between blocks moves the ratio (compare `--only get` three times with
// each timer; docs/performance.md). --timer hyperfine still asks for it.
const hyperfineVersion = opts.timer === 'hyperfine' ? spawnSync('hyperfine', ['--version'], { encoding: 'utf8' }).stdout?.trim() : undefined;
const hyperfine = Boolean(hyperfineVersion);
if (opts.timer === 'hyperfine' && !hyperfine) throw new Error('--timer hyperfine: hyperfine is not installed');
// --timer instructions: what each run executes, counted by valgrind, for an A/B of two builds (docs/performance.md).
const valgrindVersion = opts.timer === 'instructions' ? spawnSync('valgrind', ['--version'], { encoding: 'utf8' }).stdout?.trim() : undefined;
const instructions = Boolean(valgrindVersion);
if (opts.timer === 'instructions' && !instructions) throw new Error('--timer instructions: valgrind is not installed (apt-get install valgrind)');
if (opts.timer !== undefined && !['node', 'hyperfine', 'instructions'].includes(opts.timer)) throw new Error('--timer: node, hyperfine or instructions');
/** Runs of each command under valgrind; with V8's seed fixed (SEEDED) its count repeats to within 0.01%. */
const COUNTED_RUNS = 3;
/**
 * V8 draws the seed of its string hashes at start, and finding one costs a
 * random number of instructions (callgrind: HashSeed::InitializeRoots, 2 to
 * 20 M): the counts of a command moved by 2-4% from run to run. Fixed, they
 * repeat. V8's code-cache check ignores this flag: no cache is rejected. The
 * seed costs as few as the runs that cost least (`node -e 0` 83.7 M on Node 20).
 */
const SEEDED = '--random-seed=5';
const TIMER = instructions ? `instructions counted by ${valgrindVersion} (callgrind), ${COUNTED_RUNS} runs, node ${SEEDED}` : (hyperfineVersion ?? 'Node timing loop (interleaved)');
const quote = (a) => (/^[\w./:=,@+-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`);

/**
 * Median wall times (ms) of a reference (`node -e 0` unless given) and of
 * `node bin/smslink.js ...args` (or of `script ...args`), output discarded;
 * with --timer instructions, the median of the instructions each executes
 * (millions). `removed`, a folder, is removed before every run (not timed).
 */
async function startup(args, env = {}, script = BIN, reference = [NODE, '-e', '0'], removed = undefined) {
  const target = [NODE, script, ...args];
  const fullEnv = { ...baseEnv, ...env };
  if (hyperfine) {
    const out = join(tmp, 'hyperfine.json');
    // hyperfine runs one command after the other: the reference before and after the target evens out a drift.
    const commands = [reference, target, reference].map((cmd) => cmd.map(quote).join(' '));
    const prepare = removed ? ['--prepare', `rm -rf ${quote(removed)}`] : [];
    const r = spawnSync('hyperfine', ['-N', ...prepare, '--warmup', '3', '--runs', String(RUNS), '--export-json', out, ...commands], {
      env: fullEnv,
      stdio: ['ignore', 'ignore', 'pipe'],
      encoding: 'utf8',
    });
    if (r.status !== 0) throw new Error(`hyperfine: ${r.stderr}`);
    const [before, tgt, after] = JSON.parse(readFileSync(out, 'utf8')).results;
    return { reference: ((before.median + after.median) / 2) * 1000, target: tgt.median * 1000 };
  }
  if (instructions) {
    // A run of each first, untimed: it fills the compile cache, which valgrind leaves usable (V8's flags are the same).
    const counted = ([node, ...rest], count) => {
      if (removed) rmSync(removed, { recursive: true, force: true });
      const cmd = node === NODE ? [node, SEEDED, ...rest] : [node, ...rest];
      const r = spawnSync('valgrind', ['--tool=callgrind', '--callgrind-out-file=/dev/null', ...cmd], { env: fullEnv, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`${cmd.join(' ')} exited ${r.status} under valgrind: ${r.stderr.slice(-2000)}`);
      return count ? Number(/I\s+refs:\s+([\d,]+)/.exec(r.stderr)[1].replace(/,/g, '')) / 1e6 : 0;
    };
    if (!removed) [reference, target].forEach((cmd) => spawnSync(cmd[0], cmd.slice(1), { env: fullEnv, stdio: 'ignore' }));
    const counts = { reference: [], target: [] };
    for (let i = 0; i < COUNTED_RUNS; i++) {
      counts.reference.push(counted(reference, true));
      counts.target.push(counted(target, true));
    }
    return { reference: median(counts.reference), target: median(counts.target), unit: 'M instructions' };
  }
  const once_ = (cmd) => {
    if (removed) rmSync(removed, { recursive: true, force: true });
    const started = process.hrtime.bigint();
    const r = spawnSync(cmd[0], cmd.slice(1), { env: fullEnv, stdio: ['ignore', 'ignore', 'pipe'] });
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    if (r.status !== 0) throw new Error(`${cmd.join(' ')} exited ${r.status}: ${r.stderr}`);
    return ms;
  };
  for (let i = 0; i < 3; i++) {
    once_(reference);
    once_(target);
  }
  const times = { reference: [], target: [] };
  for (let i = 0; i < RUNS; i++) {
    // Alternating order spreads slow moments of a shared machine over both.
    const order = i % 2 ? ['reference', 'target'] : ['target', 'reference'];
    for (const which of order) times[which].push(once_(which === 'reference' ? reference : target));
  }
  return { reference: median(times.reference), target: median(times.target) };
}

function startupRow(id, what, budget, t, referenceName = 'node -e 0') {
  const unit = t.unit ?? 'ms';
  return {
    id,
    what,
    value: t.target / t.reference,
    unit: 'x',
    budget: `<= ${budget}`,
    // A budget is a ratio of times: counted instructions are no pass or fail, only a comparison.
    pass: t.unit ? null : t.target / t.reference <= budget,
    detail: `median ${t.target.toFixed(1)} ${unit} vs ${referenceName} ${t.reference.toFixed(1)} ${unit}`,
  };
}

// ---------------------------------------------------------------- the inspector in a browser

const CHROMIUM = '/usr/bin/chromium';

/** Headless Chromium, as test/browser/chromium.ts starts it; one for both inspector rows. */
async function browser() {
  if (!existsSync(CHROMIUM)) throw new Error(`the inspector rows need Chromium at ${CHROMIUM} (apt-get install chromium), or leave them out with --only`);
  if (!chromium) {
    const { chromium: launcher } = await import('playwright-core');
    const context = await launcher.launchPersistentContext(join(tmp, 'chromium'), {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'],
      viewport: { width: 1440, height: 900 },
    });
    chromium = { context, process: context.browser()?.process?.() };
  }
  return chromium.context;
}

/** A page of the emulator at `url`, once its live updates are on; nothing it asks for leaves this machine. */
async function inspectorPage(url) {
  const page = await (await browser()).newPage();
  await page.route((u) => !u.href.startsWith(url), (route) => route.abort());
  await page.goto(`${url}/`);
  await page.waitForFunction(() => document.body.dataset.live === 'on');
  return page;
}

// ---------------------------------------------------------------- rows

const ROWS = {
  async version() {
    return startupRow('version', '`smslink --version` / `node -e 0`', 1.3, await startup(['--version']));
  },

  async help() {
    return startupRow('help', '`smslink --help` / `node -e 0`', 1.6, await startup(['--help']));
  },

  async get() {
    const emulator = await startEmulator();
    try {
      const { data } = await call(emulator.url, 'Link/Create', 'data[fullLink]=https%3A%2F%2Fexample.com%2Fget');
      const env = { SMSLINK_BASE_URL: emulator.url, SMSLINK_API_KEY: KEY };
      // Its reference is the same request sent by node:http alone, timed in the same interleaved runs (issue 17);
      // 1.45x since the form is written by qs, which loads with the first request (issue 23).
      const reference = [NODE, ONE_REQUEST, emulator.url, KEY, String(data.id)];
      const t = await startup(['link', 'get', String(data.id)], env, BIN, reference);
      return startupRow('get', '`smslink link get <id>` against `smslink serve` / the same Link/Get through node:http alone (bench/one-request.cjs)', 1.45, t, 'node:http alone');
    } finally {
      await emulator.stop();
    }
  },

  /**
   * Not a budget: the first command after an install, `link get` with no
   * compile cache yet (each run starts without one and writes it as it
   * exits, as a user's first run does), against the `get` row's reference.
   */
  async cold() {
    const emulator = await startEmulator();
    try {
      const { data } = await call(emulator.url, 'Link/Create', 'data[fullLink]=https%3A%2F%2Fexample.com%2Fcold');
      const cache = join(tmp, 'cold-cache');
      const env = { SMSLINK_BASE_URL: emulator.url, SMSLINK_API_KEY: KEY, SMSLINK_CACHE_DIR: cache };
      const reference = [NODE, ONE_REQUEST, emulator.url, KEY, String(data.id)];
      const t = await startup(['link', 'get', String(data.id)], env, BIN, reference, cache);
      const what = '`smslink link get <id>` as the first command after an install (no compile cache) / the same Link/Get through node:http alone';
      return { ...startupRow('cold', what, 2.0, t, 'node:http alone'), budget: '-', pass: null };
    } finally {
      await emulator.stop();
    }
  },

  /** Not a budget: the same request through node:http alone (bench/one-request.cjs), the floor under the `get` row. */
  async http() {
    const emulator = await startEmulator();
    try {
      const { data } = await call(emulator.url, 'Link/Create', 'data[fullLink]=https%3A%2F%2Fexample.com%2Fget');
      const t = await startup([emulator.url, KEY, String(data.id)], {}, ONE_REQUEST);
      return { ...startupRow('http', 'reference: the same Link/Get through node:http alone (bench/one-request.cjs) / `node -e 0`', 2.0, t), budget: '-', pass: null };
    } finally {
      await emulator.stop();
    }
  },

  async sandbox() {
    await smslink(['--sandbox', 'link', 'create', 'https://example.com/sandbox', '-q']);
    return startupRow('sandbox', '`smslink --sandbox link get <id>` / `node -e 0`', 3.0, await startup(['--sandbox', 'link', 'get', '1']));
  },

  /** A table drawn: cli-table3 is loaded on first use (-o table, as a terminal would get one). */
  async 'sandbox-list'() {
    for (const item of ['spring', 'summer', 'autumn']) await smslink(['--sandbox', 'link', 'create', `https://example.com/products/${item}?utm_source=sms`, '-q']);
    return startupRow('sandbox-list', '`smslink --sandbox link list -o table` / `node -e 0`', 3.0, await startup(['--sandbox', 'link', 'list', '-o', 'table']));
  },

  /**
   * Three bulk runs, each paired with an autocannon run of the same request
   * right before or after it (alternately, so that a drift of the machine
   * evens out); the row is the median of the three ratios. autocannon's rate
   * on this machine moves by 15% from one run to the next, more than the
   * bulk run's own, and a single pair measured that swing as much as smslink.
   */
  async bulk() {
    const rows = 10_000;
    const pairs = 3;
    const csv = `fullLink,comment\n${Array.from({ length: rows }, (_, i) => `https://example.com/bulk/${i},row ${i}`).join('\n')}\n`;
    const emulator = await startEmulator();
    try {
      const body = 'data[fullLink]=https%3A%2F%2Fexample.com%2Fbulk%2F1&data[comment]=row%201';
      await call(emulator.url, 'Link/Create', body);
      const path = `/service/Link/Create?output=json&api=v1&apiKey=${KEY}`;
      await cannon(emulator.url, { path, method: 'POST', body, connections: 16, duration: 2 }); // warm-up
      const env = { SMSLINK_BASE_URL: emulator.url, SMSLINK_API_KEY: KEY };
      const measured = [];
      for (let i = 0; i < pairs; i++) {
        // A file of its own per run: the journal of the one before would say its rows are done.
        const input = join(tmp, `links-10k-${i}.csv`);
        writeFileSync(input, csv);
        const bulkRun = async () => rows / ((await smslink(['link', 'create', '--from-file', input, '--concurrency', '16', '-o', 'ndjson'], env)).ms / 1000);
        const cannonRun = () => cannon(emulator.url, { path, method: 'POST', body, connections: 16, duration: Math.max(2, DURATION / 2) });
        let perSecond;
        let reference;
        if (i % 2 === 0) {
          perSecond = await bulkRun();
          reference = await cannonRun();
        } else {
          reference = await cannonRun();
          perSecond = await bulkRun();
        }
        measured.push({ perSecond, reference });
      }
      const ratios = measured.map((m) => m.perSecond / m.reference);
      const value = median(ratios);
      return {
        id: 'bulk',
        what: 'bulk `link create --from-file` 10,000 rows, --concurrency 16 / autocannon Link/Create (16 connections), `serve --db :memory:`',
        value,
        unit: 'x',
        budget: '>= 0.7',
        pass: value >= 0.7,
        detail: `median of ${pairs} pairs: ${measured.map((m) => `${Math.round(m.perSecond)} rows/s vs ${Math.round(m.reference)} req/s`).join('; ')} (start-up included)`,
      };
    } finally {
      await emulator.stop();
    }
  },

  async emulator() {
    const emulator = await startEmulator();
    let bare;
    try {
      const { data } = await call(emulator.url, 'Link/Create', 'data[fullLink]=https%3A%2F%2Fexample.com%2Fthroughput');
      const body = `id=${data.id}`;
      const path = `/service/Link/Get?output=json&api=v1&apiKey=${KEY}`;
      const answer = JSON.stringify(await call(emulator.url, 'Link/Get', body));
      // The bare server answers the emulator's own Link/Get answer, byte for byte, to any request.
      const server = `const b = Buffer.from(${JSON.stringify(answer)});
        const s = require('node:http').createServer((q, r) => { q.resume(); q.on('end', () => r.writeHead(200, { 'content-type': 'application/json', 'content-length': b.length }).end(b)); });
        s.listen(0, '127.0.0.1', () => console.log('listening on http://127.0.0.1:' + s.address().port));`;
      bare = await startServer(['-e', server]);
      const options = { path, method: 'POST', body, connections: 10 };
      await cannon(bare.url, { ...options, duration: 2 });
      await cannon(emulator.url, { ...options, duration: 2 });
      // Windows of the two alternate, in pairs, as the bulk row's runs do: the machine's speed drifts between
      // one window and the next (see the reference's rate in `--only emulator` run a few times), and a ratio
      // of one window each takes all of that drift. The pairs share --duration.
      const pairs = 3;
      const window = Math.max(1, Math.round(DURATION / pairs));
      const measured = [];
      for (let i = 0; i < pairs; i++) {
        const reference = await cannon(bare.url, { ...options, duration: window });
        const perSecond = await cannon(emulator.url, { ...options, duration: window });
        measured.push({ reference, perSecond });
      }
      const value = median(measured.map((m) => m.perSecond / m.reference));
      return {
        id: 'emulator',
        what: 'emulator Link/Get req/s (`serve --db :memory:`) / bare node:http with a fixed JSON body; autocannon, 10 connections',
        value,
        unit: 'x',
        budget: '>= 0.5',
        pass: value >= 0.5,
        detail: `median of ${pairs} pairs of ${window} s: ${measured.map((m) => `${Math.round(m.perSecond)} vs ${Math.round(m.reference)} req/s`).join('; ')}`,
      };
    } finally {
      await emulator.stop();
      await bare?.stop();
    }
  },

  /** A conversation of 1,000 messages: the inbox page, from navigation to its load event (issue 18's figure). */
  async 'inspector-page'() {
    const seed = join(tmp, 'seed-1000.json');
    const messages = Array.from({ length: 1000 }, (_, i) => ({ to: '77011234567', text: `Message number ${i} with a little text`, status: 'DELIVRD' }));
    writeFileSync(seed, JSON.stringify({ keys: [KEY], messages }));
    const emulator = await startServer([BIN, 'serve', '--port', '0', '--db', ':memory:', '--seed', seed]);
    try {
      const page = await inspectorPage(emulator.url);
      const loads = [];
      // One warm-up load (the server's first render of the page, Chromium's caches), then the timed ones.
      for (let i = 0; i <= 5; i++) {
        await page.goto(`${emulator.url}/?to=77011234567`);
        const shown = await page.locator('.msg').count();
        if (shown !== 1000) throw new Error(`the inbox showed ${shown} messages, not 1,000`);
        if (i > 0) loads.push(await page.evaluate(() => performance.getEntriesByType('navigation')[0].loadEventEnd));
      }
      await page.close();
      const value = median(loads);
      return {
        id: 'inspector-page',
        what: 'inspector: a conversation of 1,000 messages, navigation to load event in headless Chromium',
        value,
        unit: 'ms',
        budget: '<= 1000',
        pass: value <= 1000,
        detail: `median of ${loads.length} loads: ${loads.map((t) => t.toFixed(0)).join(', ')} ms`,
      };
    } finally {
      await emulator.stop();
    }
  },

  /** A message sent through the API, from the request to its bubble in an open inbox (server-sent event, then the page's fetch). */
  async 'inspector-live'() {
    const emulator = await startEmulator();
    try {
      const page = await inspectorPage(emulator.url);
      const times = [];
      for (let i = 0; i < 10; i++) {
        const text = `live ${i}`;
        const started = performance.now();
        await call(emulator.url, 'Message/SendSmsMessage', `recipient=77011234567&text=${encodeURIComponent(text)}`);
        await page.waitForFunction((t) => [...document.querySelectorAll('.msg .text')].some((el) => el.textContent === t), text);
        times.push(performance.now() - started);
      }
      await page.close();
      const value = median(times);
      return {
        id: 'inspector-live',
        what: 'inspector: a message sent through the API, until it shows in an open inbox (headless Chromium)',
        value,
        unit: 'ms',
        budget: '<= 500',
        pass: value <= 500,
        detail: `median of ${times.length}: ${times.map((t) => t.toFixed(0)).join(', ')} ms`,
      };
    } finally {
      await emulator.stop();
    }
  },

  async validate() {
    const rows = 1_000_000;
    const file = join(tmp, 'links-1m.csv');
    const out = createWriteStream(file);
    out.write('fullLink,status,comment\n');
    for (let i = 0; i < rows; i++) {
      if (!out.write(`https://example.com/million/${i},active,row ${i}\n`)) await once(out, 'drain');
    }
    out.end();
    await once(out, 'close');
    const run = await smslink(['link', 'create', '--from-file', file, '--validate-only'], {}, { rssFile: join(tmp, 'rss-validate') });
    return {
      id: 'validate',
      what: 'peak RSS of `link create --from-file` 1,000,000 rows --validate-only',
      value: run.maxRssMb,
      unit: 'MB',
      budget: '<= 150',
      pass: run.maxRssMb <= 150,
      detail: `${(run.ms / 1000).toFixed(1)} s, ${Math.round(rows / (run.ms / 1000))} rows/s`,
    };
  },

  async list() {
    const links = 100_000;
    const emulator = await startEmulator();
    try {
      const path = `/service/Link/Create?output=json&api=v1&apiKey=${KEY}`;
      await cannon(emulator.url, { path, method: 'POST', body: 'data[fullLink]=https%3A%2F%2Fexample.com%2Flist', connections: 16, amount: links });
      const { data } = await call(emulator.url, 'Link/List', 'pagination[pageSize]=25');
      if (Number(data.totalItemCount) !== links) throw new Error(`expected ${links} links, the emulator has ${data.totalItemCount}`);
      const env = { SMSLINK_BASE_URL: emulator.url, SMSLINK_API_KEY: KEY };
      const run = await smslink(['link', 'list', '--all', '-o', 'ndjson'], env, { countLines: true, rssFile: join(tmp, 'rss-list') });
      if (run.lines !== links) throw new Error(`link list --all printed ${run.lines} links, not ${links}`);
      return {
        id: 'list',
        what: 'peak RSS of `link list --all -o ndjson` over 100,000 links',
        value: run.maxRssMb,
        unit: 'MB',
        budget: '<= 150',
        pass: run.maxRssMb <= 150,
        detail: `${(run.ms / 1000).toFixed(1)} s, ${links / 100} pages of 100`,
      };
    } finally {
      await emulator.stop();
    }
  },
};

// ---------------------------------------------------------------- scale (--scale)

/**
 * `npm run bench -- --scale`: how time and peak RSS grow with the work. Each
 * case runs once at each of its sizes (or --sizes); its row gives the time,
 * smslink's own CPU time and peak RSS at each, against its budgets: peak RSS
 * (150 MB) at every size, and CPU time growing at most 1.2 times as fast as
 * the work (12x for 10x the rows). CPU time, not wall time: on a shared
 * 2-core machine a long run's wall time follows what else runs (and
 * `smslink serve`'s own growth), where smslink's CPU is what it controls.
 * The cases: SCALE_CASES here (bulk runs), and bench/mirror-scale.js's
 * MIRROR_SCALE_CASES. A case is { id, what, sizes, budget, run(ctx, size) },
 * run resolving with { ms, cpuMs, rssMb } of one run of the bin (see
 * bulkRun). Takes long (a million rows go through `smslink serve`); not CI.
 */
const SCALE_SLACK = 1.2;

/** What the bulk cases of one --scale run share: an emulator started on first use, and a scratch object per size. */
function scaleContext() {
  let emulator;
  const scratch = new Map();
  return {
    async env() {
      emulator ??= startEmulator();
      const { url } = await emulator;
      return { SMSLINK_BASE_URL: url, SMSLINK_API_KEY: KEY };
    },
    /** Things a case leaves for another at this size (a file sent, to rerun). */
    at(size) {
      if (!scratch.has(size)) scratch.set(size, {});
      return scratch.get(size);
    },
    rssFile: (name, size) => join(tmp, `rss-${name}-${size}`),
    async stop() {
      if (emulator) await (await emulator).stop();
    },
  };
}

/** Writes a file of a header and `rows` lines, streamed (a million rows never sit in memory). */
async function writeRows(path, header, rows, line) {
  const out = createWriteStream(path);
  out.write(`${header}\n`);
  for (let i = 0; i < rows; i++) if (!out.write(`${line(i)}\n`)) await once(out, 'drain');
  out.end();
  await once(out, 'close');
  return path;
}

/** The two bulk commands of the scale cases, each with its input of n rows (numbers and links unique per size). */
const BULK = {
  links: {
    input: (n) => writeRows(join(tmp, `scale-links-${n}.csv`), 'fullLink,comment', n, (i) => `https://example.com/scale-${n}/${i},row ${i}`),
    args: (input) => ['link', 'create', '--from-file', input, '--concurrency', '16', '-o', 'ndjson'],
  },
  sms: {
    input: (n) => writeRows(join(tmp, `scale-sms-${n}.csv`), 'recipient,name,code', n, (i) => `7${String(n).length}${String(i).padStart(9, '0')},Client ${i},${1000 + (i % 9000)}`),
    args: (input) => ['message', 'send', '--from-file', input, '--text', 'Hi {{name}}, your code is {{code}}', '--concurrency', '16', '-o', 'ndjson'],
  },
};

/** One run of the bin as a case's measure: wall ms, smslink's CPU ms, peak RSS (MB). */
const measured = (run) => ({ ms: run.ms, cpuMs: run.cpuMs, rssMb: run.maxRssMb });

/** A first bulk run of n rows (its journal made afresh); the file is left for the rerun case. */
async function bulkRun(kind, n, ctx, rssFile) {
  const input = await BULK[kind].input(n);
  rmSync(`${input}.journal`, { force: true });
  rmSync(`${input}.journal.tally`, { force: true });
  const run = await smslink(BULK[kind].args(input), await ctx.env(), { rssFile });
  ctx.at(n)[kind] = input;
  return measured(run);
}

/** The same command again over a finished file: every row is already done. */
async function bulkRerun(kind, n, ctx, rssFile) {
  if (!ctx.at(n)[kind]) await bulkRun(kind, n, ctx);
  return measured(await smslink(BULK[kind].args(ctx.at(n)[kind]), await ctx.env(), { rssFile }));
}

const SIZES = [100_000, 1_000_000];
const BUDGET = { ratio: 12, rssMb: 150 };

const SCALE_CASES = [
  {
    id: 'bulk-run',
    what: '`link create --from-file`, --concurrency 16, against `smslink serve --db :memory:`',
    sizes: SIZES,
    budget: BUDGET,
    run: (ctx, n) => bulkRun('links', n, ctx, ctx.rssFile('bulk-run', n)),
  },
  {
    id: 'bulk-rerun',
    what: 'the same `link create` again, every row already done (the journal read, nothing sent)',
    sizes: SIZES,
    budget: BUDGET,
    run: (ctx, n) => bulkRerun('links', n, ctx, ctx.rssFile('bulk-rerun', n)),
  },
  {
    id: 'bulk-send',
    what: '`message send --from-file` with a --text template, --concurrency 16, against `smslink serve`',
    sizes: SIZES,
    budget: BUDGET,
    run: (ctx, n) => bulkRun('sms', n, ctx, ctx.rssFile('bulk-send', n)),
  },
  {
    id: 'bulk-send-rerun',
    what: 'the same `message send` again, every row already done',
    sizes: SIZES,
    budget: BUDGET,
    run: (ctx, n) => bulkRerun('sms', n, ctx, ctx.rssFile('bulk-send-rerun', n)),
  },
  {
    id: 'bulk-validate',
    what: '`link create --from-file --validate-only`',
    sizes: SIZES,
    budget: BUDGET,
    async run(ctx, n) {
      const input = ctx.at(n).links ?? (await BULK.links.input(n));
      return measured(await smslink(['link', 'create', '--from-file', input, '--validate-only'], {}, { rssFile: ctx.rssFile('bulk-validate', n) }));
    },
  },
];

async function scaleMain() {
  const { MIRROR_SCALE_CASES, workDir } = await import('./mirror-scale.js');
  // A mirror case runs in mirror-scale.js's own work directory, made on first use.
  let work;
  const mirror = MIRROR_SCALE_CASES.map((c) => ({ ...c, run: (_ctx, size) => c.run((work ??= workDir()), size) }));
  const cases = [...SCALE_CASES, ...mirror];
  const given = opts.sizes?.split(',').map(Number);
  if (given && (given.length < 2 || !given.every((n) => Number.isInteger(n) && n > 0))) throw new Error('--sizes: two or more whole numbers, e.g. 100000,1000000');
  const only = opts.only?.split(',');
  for (const id of only ?? []) if (!cases.some((c) => c.id === id)) throw new Error(`unknown --scale case "${id}"; cases: ${cases.map((c) => c.id).join(', ')}`);
  mkdirSync(join(tmp, 'config'));
  const info = machine();
  process.stderr.write(`smslink bench --scale: ${info.cpu}, ${info.cores} cores, Node ${info.node}\n`);
  const ctx = scaleContext();
  const rows = [];
  try {
    for (const c of cases.filter((x) => !only || only.includes(x.id))) {
      // --sizes applies to the cases that grow; a case of one size keeps it.
      const sizes = given && c.sizes.length > 1 ? given : c.sizes;
      const runs = [];
      for (const size of sizes) {
        process.stderr.write(`  ${c.id} at ${size} ...`);
        const r = await c.run(ctx, size);
        runs.push({ size, seconds: r.ms / 1000, cpuSeconds: r.cpuMs / 1000, maxRssMb: r.rssMb, note: r.note });
        process.stderr.write(` ${(r.ms / 1000).toFixed(1)} s (CPU ${(r.cpuMs / 1000).toFixed(1)} s), ${r.rssMb.toFixed(0)} MB${r.note ? `; ${r.note}` : ''}\n`);
      }
      const [small, large] = [runs[0], runs.at(-1)];
      const ratio = runs.length > 1 ? large.cpuSeconds / small.cpuSeconds : null;
      const ratioBudget = runs.length > 1 && c.budget.ratio ? SCALE_SLACK * (large.size / small.size) : null;
      const peak = Math.max(...runs.map((r) => r.maxRssMb));
      const budget = [ratioBudget ? `CPU <= ${ratioBudget.toFixed(0)}x` : '', `RSS <= ${c.budget.rssMb} MB`].filter(Boolean).join(', ');
      rows.push({ id: c.id, what: c.what, runs, ratio, budget, pass: (ratioBudget === null || ratio <= ratioBudget) && peak <= c.budget.rssMb });
    }
  } finally {
    await ctx.stop();
  }
  if (!only) writeFileSync(join(ROOT, 'bench/scale-results.json'), `${JSON.stringify({ date: new Date().toISOString(), machine: info, rows }, null, 2)}\n`);
  const cell = (x) => `${x.size.toLocaleString('en')}: ${x.seconds.toFixed(1)} s (CPU ${x.cpuSeconds.toFixed(1)} s), ${x.maxRssMb.toFixed(0)} MB`;
  const lines = [
    ['case', 'runs: wall time (smslink CPU), peak RSS', 'CPU ratio', 'budget', 'result'],
    ['---', '---', '---', '---', '---'],
    ...rows.map((r) => [r.id, r.runs.map(cell).join('; '), r.ratio === null ? '-' : r.ratio.toFixed(1), r.budget, r.pass ? 'pass' : 'FAIL']),
  ];
  process.stdout.write(`${lines.map((l) => `| ${l.join(' | ')} |`).join('\n')}\n`);
  return rows.every((r) => r.pass) ? 0 : 1;
}

// ---------------------------------------------------------------- main

function machine() {
  const cpu = cpus();
  return {
    cpu: cpu[0]?.model.trim() ?? 'unknown',
    cores: cpu.length,
    memoryGb: Math.round(totalmem() / 2 ** 30),
    os: `${platform()} ${release()}`,
    node: process.version,
  };
}

function table(rows) {
  const result = (r) => (r.pass === null ? '-' : r.pass ? 'pass' : 'FAIL');
  const cells = rows.map((r) => [r.what, r.unit === 'x' ? r.value.toFixed(2) : `${r.value.toFixed(1)} ${r.unit}`, r.budget, result(r)]);
  const lines = [['what', 'ratio or value', 'budget', 'result'], ...cells].map((c) => `| ${c.join(' | ')} |`);
  lines.splice(1, 0, '|---|---|---|---|');
  return lines.join('\n');
}

async function main() {
  const only = opts.only?.split(',');
  const ids = only ?? Object.keys(ROWS);
  for (const id of ids) if (!ROWS[id]) throw new Error(`unknown row "${id}"; rows: ${Object.keys(ROWS).join(', ')}`);
  mkdirSync(join(tmp, 'config'));
  const info = machine();
  process.stderr.write(`smslink bench: ${info.cpu}, ${info.cores} cores, Node ${info.node}; start-up ${instructions ? TIMER : `timed with ${TIMER}, ${RUNS} runs`}\n`);
  if (dropped.length) process.stderr.write(`  measuring without ${dropped.join(', ')} (--keep-node-env keeps them)\n`);
  const rows = [];
  for (const id of ids) {
    process.stderr.write(`  ${id} ...`);
    const row = await ROWS[id]();
    process.stderr.write(` ${row.unit === 'x' ? row.value.toFixed(2) : row.value.toFixed(1)} ${row.unit} (${row.detail})\n`);
    rows.push(row);
  }
  const environment = { without: dropped, keptNodeEnv: opts['keep-node-env'] };
  const results = { date: new Date().toISOString(), machine: info, timer: TIMER, runs: RUNS, autocannonSeconds: DURATION, environment, rows };
  if (!only && !instructions) writeFileSync(join(ROOT, 'bench/results.json'), `${JSON.stringify(results, null, 2)}\n`);
  process.stdout.write(`${table(rows)}\n`);
  return rows.every((r) => r.pass !== false) ? 0 : 1;
}

try {
  process.exitCode = await (opts.scale ? scaleMain() : main());
} finally {
  await chromium?.context.close();
  for (const child of children) child.kill('SIGTERM');
  cleanup();
}
