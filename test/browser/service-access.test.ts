// A web page the developer visits must not drive `serve` (issue 34): in
// headless Chromium, a cross-site form POST and a DNS-rebinding page are
// refused and nothing is done, while the pages of an origin named with
// --cors call /service/ and read the answer. rebind.test resolves to
// 127.0.0.1, as a rebinding attacker's name would. Chromium's own check of
// requests from public pages to loopback is off, as browsers without it
// (Firefox, Safari) are: what is refused here, the emulator refused.
import type { Page, Route } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../src/emulator/index.js';
import { launchChromium, type Browser } from './chromium.js';

const KEY = 'browser-access-key-0123';
const query = `output=json&api=v1&apiKey=${KEY}`;

let browser: Browser;
let emulator: RunningEmulator | undefined;
let page: Page | undefined;
let lines: string[] = [];

beforeAll(async () => {
  browser = await launchChromium([
    '--host-resolver-rules=MAP rebind.test 127.0.0.1',
    '--disable-features=BlockInsecurePrivateNetworkRequests,PrivateNetworkAccessSendPreflights,PrivateNetworkAccessRespectPreflightResults,LocalNetworkAccessChecks',
  ]);
}, 180_000);
afterAll(() => browser?.close());
afterEach(async () => {
  await page?.close();
  await emulator?.close();
  emulator = undefined;
});

async function start(opts: EmulatorOptions = {}): Promise<RunningEmulator> {
  lines = [];
  // Chromium keeps a connection to it open past the page: close without waiting the grace time for it.
  emulator = await startEmulator({ port: 0, db: ':memory:', apiKeys: [KEY], requestLog: (line) => lines.push(line), limits: { closeGraceMs: 100 }, ...opts });
  return emulator;
}

/** A page whose documents come from `pages` (URL -> HTML); requests to `through` go to the network; anything else is stopped. */
async function openPage(pages: Record<string, string>, through: (url: URL) => boolean): Promise<Page> {
  page = await browser.context.newPage();
  await page.route('**/*', (route: Route) => {
    const url = new URL(route.request().url());
    if (pages[url.href] !== undefined) return route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: pages[url.href] });
    return through(url) ? route.continue() : route.abort();
  });
  return page;
}

async function messageCount(e: RunningEmulator): Promise<number> {
  const res = await fetch(`${e.url}/service/Message/List?${query}`);
  return Number(((await res.json()) as { data: { totalItemCount: string } }).data.totalItemCount);
}

describe('serve in a browser', () => {
  it('refuses a cross-site form POST: no message is sent', async () => {
    const e = await start();
    const attack = `<form method="POST" action="${e.url}/service/Message/SendSmsMessage?${query}">
      <input name="recipient" value="77011234567"><input name="text" value="sent by another site"></form>
      <script>document.forms[0].submit()</script>`;
    const p = await openPage({ 'http://attacker.test/': attack }, (url) => url.origin === e.url);
    const answered = p.waitForResponse((r) => r.url().includes('/service/'));
    await p.goto('http://attacker.test/');
    const response = await answered;
    expect(response.status()).toBe(403);
    expect(await response.json()).toMatchObject({ code: 9, message: expect.stringContaining('other sites are refused') });
    expect(await messageCount(e)).toBe(0);
    expect(lines.some((l) => /SendSmsMessage {2}HTTP 403/.test(l))).toBe(true);
  });

  it('refuses a DNS-rebinding page: its same-origin request names another host', async () => {
    const e = await start();
    await fetch(`${e.url}/service/Message/SendSmsMessage?${query}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'recipient=77011234567&text=private+text' });
    const origin = `http://rebind.test:${e.port}`;
    const steal = `<script>
      fetch('/service/Message/List?${query}').then(async (r) => { document.body.dataset.status = r.status; document.body.dataset.text = await r.text(); },
        (err) => { document.body.dataset.status = 'failed: ' + err; });
    </script>`;
    const p = await openPage({ [`${origin}/`]: steal }, (url) => url.origin === origin);
    await p.goto(`${origin}/`);
    await p.waitForFunction(() => document.body.dataset.status !== undefined);
    const { status, text } = await p.evaluate(() => ({ status: document.body.dataset.status, text: document.body.dataset.text ?? '' }));
    expect(status).toBe('403');
    expect(JSON.parse(text)).toMatchObject({ code: 9, message: expect.stringContaining('loopback names only') });
    expect(text).not.toContain('private text');
    // The request reached the emulator, which refused it.
    expect(lines.some((l) => /Message\/List {2}HTTP 403/.test(l))).toBe(true);
  });

  it('answers the pages of a --cors origin, preflight included', async () => {
    const e = await start({ cors: ['http://app.test:3000'] });
    const app = `<script>
      fetch('${e.url}/service/Message/SendSmsMessage?${query}', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-app': '1' }, body: 'recipient=77011234567&text=from+the+app' })
        .then((r) => r.json()).then((env) => { document.body.dataset.code = env.code; }, (err) => { document.body.dataset.code = 'failed: ' + err; });
    </script>`;
    const p = await openPage({ 'http://app.test:3000/': app }, (url) => url.origin === e.url);
    await p.goto('http://app.test:3000/');
    await p.waitForFunction(() => document.body.dataset.code !== undefined);
    expect(await p.evaluate(() => document.body.dataset.code)).toBe('0');
    expect(await messageCount(e)).toBe(1);
  });
});
