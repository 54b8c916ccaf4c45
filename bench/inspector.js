// The emulator's throughput with its inspector on and a browser watching,
// against the same budget as `npm run bench`'s emulator row: Link/Get on
// `serve --db :memory:` at >= 0.5 of a bare node:http server answering the
// same body (autocannon, 10 connections), and the emulator's CPU time per
// request (from /proc, Linux only), which a machine busy with other work
// moves far less than a rate. Not part of npm run bench (it needs Chromium): node bench/inspector.js [--duration S] [--pairs N] [--watch] [--no-inspector] [--bin PATH]
//   --watch          Chromium (Debian's /usr/bin/chromium) keeps the inbox and the request log open
//   --no-inspector   serve --no-inspector
//   --bin PATH       another build's bin/smslink.js (to measure before a change)
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';

const { values: opts } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    pairs: { type: 'string', default: '3' },
    watch: { type: 'boolean', default: false },
    'no-inspector': { type: 'boolean', default: false },
    bin: { type: 'string', default: fileURLToPath(new URL('../bin/smslink.js', import.meta.url)) },
  },
});
const KEY = 'bench-key-0123456789';
const tmp = mkdtempSync(join(tmpdir(), 'smslink-inspector-bench-'));
const children = [];
const env = { ...process.env, SMSLINK_CONFIG_DIR: join(tmp, 'config'), SMSLINK_DATA_DIR: join(tmp, 'data'), SMSLINK_CACHE_DIR: join(tmp, 'cache') };

async function startServer(args) {
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout }).on('line', (line) => {
      const m = /^listening on (\S+)/.exec(line);
      if (!m) return;
      // The request log that follows is drained unread, as bench/run.js does: autocannon shares this process.
      lines.close();
      child.stdout.resume();
      resolve(Object.assign(new String(m[1]), { pid: child.pid }));
    });
    child.on('exit', (code) => reject(new Error(`${args.join(' ')} exited ${code}`)));
  });
}

async function call(url, operation, body) {
  const res = await fetch(`${url}/service/${operation}?output=json&api=v1&apiKey=${KEY}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body,
  });
  return res.json();
}

/** CPU time (user + system) of a process so far, in ms: /proc/<pid>/stat, in clock ticks of 10 ms. */
const cpuMs = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
};

/** autocannon against one server; the mean rate, and the server's CPU per request in us. */
async function cannon(server, path, body, duration) {
  const before = cpuMs(server.pid);
  const r = await autocannon({ url: `${server}${path}`, method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded' }, connections: 10, duration });
  if (r.errors || r.non2xx || r.timeouts) throw new Error(`autocannon: ${r.errors} errors, ${r.non2xx} non-2xx, ${r.timeouts} timeouts`);
  return { rate: r.requests.average, cpuUs: ((cpuMs(server.pid) - before) * 1000) / r.requests.total };
}

let browser;
try {
  const emu = await startServer([opts.bin, 'serve', '--port', '0', '--db', ':memory:', '--api-key', KEY, ...(opts['no-inspector'] ? ['--no-inspector'] : [])]);
  const { data } = await call(emu, 'Link/Create', 'data[fullLink]=https%3A%2F%2Fexample.com%2Fthroughput');
  await call(emu, 'Message/SendSmsMessage', 'recipient=77011234567&text=watched');
  const body = `id=${data.id}`;
  const path = `/service/Link/Get?output=json&api=v1&apiKey=${KEY}`;
  const answer = JSON.stringify(await call(emu, 'Link/Get', body));
  const server = `const b = Buffer.from(${JSON.stringify(answer)});
    const s = require('node:http').createServer((q, r) => { q.resume(); q.on('end', () => r.writeHead(200, { 'content-type': 'application/json', 'content-length': b.length }).end(b)); });
    s.listen(0, '127.0.0.1', () => console.log('listening on http://127.0.0.1:' + s.address().port));`;
  const bare = await startServer(['-e', server]);
  if (opts.watch) {
    const { chromium } = await import('playwright-core');
    browser = await chromium.launchPersistentContext(join(tmp, 'profile'), {
      executablePath: '/usr/bin/chromium',
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'],
    });
    for (const p of ['/', '/_emulator/requests']) {
      const page = await browser.newPage();
      await page.goto(`${emu}${p}`);
      await page.waitForFunction("document.body.dataset.live === 'on'");
    }
  }
  const duration = Number(opts.duration);
  await cannon(bare, path, body, 2);
  await cannon(emu, path, body, 2);
  const ratios = [];
  const cpu = [];
  for (let i = 0; i < Number(opts.pairs); i++) {
    // Alternate which goes first: the machine's load drifts.
    let e, b;
    if (i % 2) {
      e = await cannon(emu, path, body, duration);
      b = await cannon(bare, path, body, duration);
    } else {
      b = await cannon(bare, path, body, duration);
      e = await cannon(emu, path, body, duration);
    }
    ratios.push(e.rate / b.rate);
    cpu.push(e.cpuUs);
    console.log(`pair ${i + 1}: emulator ${Math.round(e.rate)} req/s (${e.cpuUs.toFixed(0)} us CPU a request), bare ${Math.round(b.rate)} req/s (${b.cpuUs.toFixed(0)} us), ratio ${(e.rate / b.rate).toFixed(2)}`);
  }
  const median = (xs) => [...xs].sort((x, y) => x - y)[xs.length >> 1];
  console.log(
    `median ratio ${median(ratios).toFixed(2)} (budget >= 0.5), emulator CPU ${median(cpu).toFixed(0)} us a request${opts.watch ? '; Chromium watching the inbox and the request log' : ''}${opts['no-inspector'] ? '; --no-inspector' : ''}`,
  );
} finally {
  await browser?.close();
  for (const c of children) c.kill('SIGTERM');
  rmSync(tmp, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
}
