// The inspector in a real browser (headless Chromium): what a developer sees
// while their app sends through the emulator. Also takes the two screenshots
// of the docs (docs/inspector-inbox.png, docs/inspector-links.png) when asked. How
// fast a page of 1,000 messages loads and a live update comes: `npm run
// bench` (rows inspector-page and inspector-live), not here.
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, startEmulator, type EmulatorOptions, type RunningEmulator, type SeedData } from '../../src/emulator/index.js';
import { runCli, tempDir } from '../helpers/run-cli.js';
import { launchChromium, type Browser } from './chromium.js';

const DOCS = fileURLToPath(new URL('../../docs/', import.meta.url));
const KEY = 'browser-key-0123456789';

let browser: Browser;
let emulator: RunningEmulator | undefined;
let page: Page;

// Chromium's first start on a busy machine (cold disk cache, fonts) can take longer than the 30 s of other hooks.
beforeAll(async () => {
  browser = await launchChromium();
}, 180_000);
afterAll(() => browser?.close());
afterEach(async () => {
  await page?.close();
  await emulator?.close();
  emulator = undefined;
});

/**
 * How long the page may take to show what it is waiting for: far longer than it
 * ever takes, so that only something that never comes fails (how soon it comes
 * is a bench row, not a test).
 */
const SHOWN = { timeout: 15_000 };

/** An emulator with a page open on it; nothing the page asks for leaves this machine. */
async function open(opts: EmulatorOptions, path = '/'): Promise<RunningEmulator> {
  emulator = await startEmulator({ port: 0, db: ':memory:', apiKeys: [KEY], ...opts });
  const origin = emulator.url;
  page = await browser.context.newPage();
  await page.route((url) => !url.href.startsWith(origin), (route) => route.abort());
  page.on('dialog', (d) => void d.accept());
  await page.goto(`${origin}${path}`);
  // The page listens to the server's events before anything is sent.
  await page.waitForFunction(() => document.body.dataset.live === 'on');
  return emulator;
}

const cli = (args: string[]) => runCli(args, { env: { SMSLINK_BASE_URL: emulator!.url, SMSLINK_API_KEY: KEY } });

describe('the inbox', () => {
  it('shows a message sent with the CLI without a reload, then its status reach delivered', async () => {
    // The lifecycle in real time, 10 times faster: DELIVRD half a second after the send.
    await open({ timeScale: 10 });
    const sent = await cli(['message', 'send', '--to', '+77011234567', '--text', 'Hello from the CLI']);
    expect(sent.code, sent.stderr).toBe(0);
    const bubble = page.locator('.msg', { hasText: 'Hello from the CLI' });
    await bubble.waitFor(SHOWN);
    // In the CLI's words: the message shown whole has the service's code beside the word.
    await expect.poll(() => bubble.locator('.badge').textContent(), SHOWN).toBe('delivered (DELIVRD)');
    expect(await bubble.locator('.timeline .st').allTextContents()).toEqual(['new', 'queued', 'accepted', 'delivered']);
    expect(await bubble.locator('.facts').textContent()).toMatch(/^1 segment · GSM-7 · cost 0\.0100 KZT · campaign \d+/);
    expect(await page.locator('.conversations').textContent()).toContain('+77011234567');
  });

  it('shows each message sent through the API as it is sent, without a reload', async () => {
    await open({});
    for (let i = 0; i < 5; i++) {
      const text = `sent ${i}`;
      const res = await fetch(`${emulator!.url}/service/Message/SendSmsMessage?output=json&api=v1&apiKey=${KEY}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `recipient=77011234567&text=${encodeURIComponent(text)}`,
      });
      expect(((await res.json()) as { code: number }).code).toBe(0);
      await page.waitForFunction((t) => [...document.querySelectorAll('.msg .text')].some((el) => el.textContent === t), text, SHOWN);
    }
    expect(await page.locator('.msg .text').allTextContents()).toEqual(expect.arrayContaining(['sent 0', 'sent 1', 'sent 2', 'sent 3', 'sent 4']));
  });

  it('says when it last updated in the emulator time, as it writes every time on the page', async () => {
    await open({ clock: new ManualClock(Date.UTC(2025, 0, 15, 10, 0, 0)) });
    const sent = await cli(['message', 'send', '--to', '+77011234567', '--text', 'what time is it']);
    expect(sent.code, sent.stderr).toBe(0);
    await page.locator('.msg', { hasText: 'what time is it' }).waitFor(SHOWN);
    await expect.poll(() => page.locator('#live-status').textContent(), SHOWN).toBe('Updated at 10:00:00');
    expect(await page.locator('.timeline time').first().textContent()).toBe('10:00:00');
  });

  it('counts a click on a short link in a message on the links page', async () => {
    await open({});
    const sent = await cli(['message', 'send', '--to', '77011234567', '--text', 'Sale: https://example.com/sale now', '--shorten-links']);
    expect(sent.code, sent.stderr).toBe(0);
    const link = page.locator('.msg a.short');
    await link.waitFor(SHOWN);
    const popup = page.waitForEvent('popup');
    await link.click();
    await (await popup).close();
    await page.goto(`${emulator!.url}/_emulator/links`);
    await expect.poll(() => page.locator('td.clicks').textContent()).toBe('1');
    expect(await page.locator('td.redirects').textContent()).toBe('1');
  });

  it('shows a stored <script> comment as text, and runs none of it', async () => {
    const script = '<script>document.title="pwned"</script><img src=x onerror="document.title=\'pwned\'">';
    await open({ seed: { keys: [KEY], links: [{ fullLink: 'https://example.com/x', comment: script }] } }, '/_emulator/links');
    expect(await page.locator('td.comment').textContent()).toBe(script);
    expect(await page.title()).not.toContain('pwned');
  });

  it('empties every page on reset, without a reload', async () => {
    await open({ seed: { keys: [KEY], links: [{ fullLink: 'https://example.com/seeded', code: 'seeded' }] } });
    expect((await cli(['message', 'send', '--to', '77011234567', '--text', 'gone after reset'])).code).toBe(0);
    expect((await cli(['link', 'create', 'https://example.com/gone'])).code).toBe(0);
    await page.locator('.msg', { hasText: 'gone after reset' }).waitFor(SHOWN);
    await page.getByRole('button', { name: 'Reset' }).click();
    await page.getByText('No messages yet.').waitFor(SHOWN);
    expect(await page.locator('.msg').count()).toBe(0);
    await page.goto(`${emulator!.url}/_emulator/links`);
    expect(await page.locator('tbody tr').count()).toBe(1);
    expect(await page.locator('tbody').textContent()).toContain('https://example.com/seeded');
  });

  it('shows a conversation of 1,000 messages whole, oldest first', async () => {
    const messages = Array.from({ length: 1000 }, (_, i) => ({ to: '77011234567', text: `Message number ${i} with a little text`, status: 'DELIVRD' }));
    await open({ seed: { keys: [KEY], messages } }, '/_emulator/links');
    await page.goto(`${emulator!.url}/?to=77011234567`);
    const texts = await page.locator('.msg .text').allTextContents();
    expect(texts).toHaveLength(1000);
    expect([texts[0], texts[999]]).toEqual(['Message number 0 with a little text', 'Message number 999 with a little text']);
  });
});

/** A small, fixed scene: the screenshots come out the same on every run. */
const scene: SeedData = {
  keys: [KEY, 'second-account-key-0000'],
  senders: ['MyShop'],
  links: [
    { fullLink: 'https://example.com/spring-sale', code: 'spring', comment: 'spring sale', clicks: 12 },
    { fullLink: 'https://example.com/old-offer', code: 'old', status: 'inactive', expirationDate: '2025-01-10', comment: 'last year' },
    { fullLink: 'https://example.com/casino', code: 'x7Kq', moderatorStatus: 'blocked', moderatorComment: 'blocked pattern' },
  ],
  campaigns: [{ name: 'autumn', links: [{ fullLink: 'https://example.com/autumn', code: 'autumn', clicks: 4 }] }],
  messages: [
    { to: '77011234567', text: 'Your code is 4711', from: 'MyShop' },
    { to: '77011234567', text: 'Spring sale: http://127.0.0.1:8080/spring', from: 'MyShop' },
    { to: '77010001111', text: 'Your parcel is on its way', status: 'UNDELIV' },
    { to: '998901234567', text: 'Привет! Код 1234', status: 'ACCEPTD' },
  ],
};

describe('screenshots for the docs', () => {
  // Written into docs/ only when asked (SMSLINK_SCREENSHOTS=docs npx vitest run test/browser/inspector.test.ts):
  // a plain `npm test` leaves the clone as it found it.
  const dir = process.env.SMSLINK_SCREENSHOTS === 'docs' ? DOCS : `${tempDir()}/`;

  it('of the inbox and of the links page, at 1440 px, show what their captions say', async () => {
    await open({ seed: scene, clock: new ManualClock(Date.UTC(2025, 0, 15, 10, 0, 0)) }, '/?to=77011234567');
    // The inbox: conversations per number; each message with its sender, text, segments, encoding, cost and status timeline.
    expect(await page.locator('section.conversations li').count()).toBe(4); // all numbers, and three
    const facts = await page.locator('.msg .facts').allTextContents();
    expect(facts).toEqual([expect.stringMatching(/^1 segment · GSM-7 · cost 0\.0100 KZT · campaign \d+ · id 1$/), expect.stringMatching(/· id 2$/)]);
    expect(await page.locator('.msg').first().textContent()).toMatch(/From MyShop.*Your code is 4711.*delivered \(DELIVRD\).*new.*queued.*accepted.*delivered/s);
    expect(await page.locator('select#account-pick option').allTextContents()).toEqual(['Key 1 (********6789)', 'Key 2 (********0000)']);
    await page.screenshot({ path: `${dir}inspector-inbox.png` });
    // The links page: status, moderation, expiry, clicks and redirects of each link.
    await page.goto(`${emulator!.url}/_emulator/links`);
    const rows = (await page.locator('table.links tbody tr').allTextContents()).map((r) => r.replace(/\s+/g, ' '));
    const row = (link: string) => rows.find((r) => r.includes(link)) ?? `no row of ${link}`;
    expect(row('spring-sale')).toMatch(/ active .* 12 /);
    expect(row('old-offer')).toMatch(/ inactive /);
    expect(row('casino')).toMatch(/ blocked /);
    await page.screenshot({ path: `${dir}inspector-links.png` });
  });

  it('fit a 375 px phone without scrolling sideways, and fetch nothing from elsewhere', async () => {
    await open({ seed: scene, clock: new ManualClock(Date.UTC(2025, 0, 15, 10, 0, 0)) });
    const elsewhere: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith(emulator!.url)) elsewhere.push(r.url());
    });
    await page.setViewportSize({ width: 375, height: 800 });
    for (const path of PAGES) {
      await page.goto(`${emulator!.url}${path}`);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow, path).toBeLessThanOrEqual(0);
    }
    expect(elsewhere).toEqual([]);
  });
});

const PAGES = ['/', '/_emulator/links', '/_emulator/links/1', '/_emulator/campaigns', '/_emulator/accounts', '/_emulator/requests', '/_emulator/controls'];

/** What a busy account looks like: long links, long texts without a place to break, statuses over two days, every page full. */
const LONG_URL = `https://shop.example.com/catalogue/${'spring-collection-'.repeat(8)}item?utm_source=sms&utm_campaign=${'x'.repeat(120)}`;
const busy: SeedData = {
  keys: [KEY, 'a-second-account-key-with-a-rather-long-name-0123456789abcdefghij'],
  senders: ['LongSender1'],
  links: [
    { fullLink: LONG_URL, code: 'averyverylongcod', comment: `comment ${'w'.repeat(180)}`, clicks: 9999 },
    { fullLink: `${LONG_URL}&b=2`, status: 'inactive', expirationDate: '2025-01-10', comment: 'spaces in a long comment '.repeat(9) },
    { fullLink: 'https://example.com/casino', moderatorStatus: 'blocked', moderatorComment: `blocked: ${'reason '.repeat(30)}` },
  ],
  campaigns: [{ name: `campaign ${'n'.repeat(150)}`, links: [{ fullLink: LONG_URL, clicks: 7 }] }],
  messages: [
    { to: '998901234567890', text: `Sale: ${LONG_URL} ${'Привет! '.repeat(40)}`, from: 'LongSender1', name: `campaign-${'c'.repeat(120)}` },
    { to: '77011234567', text: 'z'.repeat(600), status: 'ACCEPTD' },
    { to: '77010001111', text: 'Your parcel is on its way', status: 'UNDELIV' },
  ],
};

describe('the request log', () => {
  it('opens a row to its parameters and answer, keeps it open through live updates, and filters by operation and code', async () => {
    await open({}, '/_emulator/requests');
    const call = (path: string, body: string, key = KEY) =>
      fetch(`${emulator!.url}/service/${path}?output=json&api=v1&apiKey=${key}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body }).then((r) => r.text());
    await call('Link/Create', 'data[fullLink]=https%3A%2F%2Fexample.com%2Fopened');
    const row = page.locator('ol.log details', { hasText: 'Link/Create' });
    await row.waitFor(SHOWN);
    await row.locator('summary').click();
    await expect.poll(() => row.locator('dl.params').textContent()).toContain('https://example.com/opened');
    expect(await row.locator('dl.params').textContent()).toContain('apiKey********6789');
    expect(JSON.parse((await row.locator('pre.answer').textContent())!)).toMatchObject({ code: 0, message: '' });
    // Newer requests redraw the log; the row the reader opened stays open.
    await call('Link/Get', 'id=999');
    await page.locator('ol.log summary', { hasText: 'Link/Get' }).waitFor(SHOWN);
    expect(await page.locator('ol.log details', { hasText: 'Link/Create' }).getAttribute('open')).not.toBeNull();
    expect(await page.content()).not.toContain(KEY);
    await page.getByLabel('Result code').selectOption('2');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/code=2/);
    expect(await page.locator('ol.log .op').allTextContents()).toEqual(['Link/Get']);
  });
});

describe('a 375 px phone', () => {
  it('shows a chosen conversation on the first screen, the list behind a link back to it', async () => {
    await open({ seed: busy, clock: new ManualClock(Date.UTC(2025, 0, 15, 10, 0, 0)), faultRate: 0 });
    await page.setViewportSize({ width: 375, height: 800 });
    await page.goto(`${emulator!.url}/`);
    const list = page.locator('section.conversations');
    expect(await list.isVisible()).toBe(true);
    await list.getByRole('link', { name: /\+77010001111/ }).click();
    await page.waitForURL(/to=77010001111/);
    // What was chosen is what the screen holds: its heading and message above the fold, the list gone.
    const thread = page.getByRole('heading', { name: /To \+77010001111/ });
    const bubble = page.locator('.msg', { hasText: 'Your parcel is on its way' });
    for (const shown of [thread, bubble]) {
      const box = (await shown.boundingBox())!;
      expect(box.y + box.height).toBeLessThanOrEqual(800);
    }
    expect(await list.isVisible()).toBe(false);
    await page.getByRole('link', { name: '← All conversations' }).click();
    await page.waitForURL((url) => !url.search.includes('to='));
    expect(await list.isVisible()).toBe(true);
    // A wide screen shows both side by side, without the link back.
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto(`${emulator!.url}/?to=77010001111`);
    expect(await list.isVisible()).toBe(true);
    expect(await thread.isVisible()).toBe(true);
    expect(await page.getByRole('link', { name: '← All conversations' }).isVisible()).toBe(false);
  });

  it('never scrolls sideways on any page, with long links, long texts, many columns and opened request rows', async () => {
    await open({ seed: busy, clock: new ManualClock(Date.UTC(2025, 0, 15, 10, 0, 0)), faultRate: 0 });
    const base = emulator!.url;
    const post = (path: string, body: string, key = KEY) =>
      fetch(`${base}/service/${path}?output=json&api=v1&apiKey=${key}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body }).then((r) => r.text());
    // Requests with long parameters and answers, an unknown key, a visit; a message that expires the next day.
    await post('Link/Create', `data[fullLink]=${encodeURIComponent(LONG_URL)}&data[comment]=${'c'.repeat(300)}`);
    await post('Message/SendSmsMessage', `recipient=77010002222&text=${encodeURIComponent(`Expiring ${LONG_URL}`)}`);
    await post('Link/List', 'pageSize=100', `unknown-key-${'k'.repeat(60)}`);
    await post('Link/List', 'pageSize=100');
    await fetch(`${base}/averyverylongcod`, { redirect: 'manual' });
    await fetch(`${base}/_emulator/deliver`, { method: 'POST' });
    await emulator!.setFaults(0.5, ['503', 'reset', 'latency:50-500ms', 'code30', 'truncated']);
    await page.setViewportSize({ width: 375, height: 800 });
    const paths = [...PAGES, '/?to=998901234567890', '/?account=2', '/_emulator/links?account=2', '/_emulator/requests?op=Link%2FList&code=0', '/_emulator/links/1?type=hourly'];
    const sideways: unknown[] = [];
    let opened = 0;
    for (const path of paths) {
      await page.goto(`${base}${path}`);
      // Every request row opened, as a reader would.
      for (const summary of await page.locator('ol.log summary').all()) {
        await summary.click();
        opened++;
      }
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      // What sticks out, for the failure message: elements, and text running past its box.
      const wide = await page.evaluate(() => {
        const out = [...document.querySelectorAll('body *')].filter((el) => el.getBoundingClientRect().right > 375.5).map((el) => `${el.tagName}.${el.className}`);
        const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
        const range = document.createRange();
        for (let n = walker.nextNode(); n; n = walker.nextNode()) {
          range.selectNodeContents(n);
          const clipped = getComputedStyle(n.parentElement!).overflowX === 'hidden';
          if (!clipped && range.getBoundingClientRect().right > 375.5) out.push(`text in ${n.parentElement!.tagName}.${n.parentElement!.className}`);
        }
        return out.slice(0, 4);
      });
      if (width > 375 || wide.length) sideways.push({ path, width, wide });
    }
    expect(sideways).toEqual([]);
    expect(opened).toBeGreaterThanOrEqual(6);
    await emulator!.setFaults(0);
  });
});

describe('keyboard, labels and contrast', () => {
  it('give all text a contrast of at least 4.5:1 (WCAG AA) against what is behind it', async () => {
    await open({ seed: scene, clock: new ManualClock(Date.UTC(2025, 0, 15, 10, 0, 0)) });
    for (const path of PAGES) {
      await page.goto(`${emulator!.url}${path}`);
      const poor = await page.evaluate(() => {
        const rgb = (c: string) => (c.match(/[\d.]+/g) ?? []).map(Number);
        const lum = ([r, g, b]: number[]) => {
          const f = (v: number) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
          return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
        };
        const background = (el: Element | null): number[] => {
          for (; el; el = el.parentElement) {
            const c = rgb(getComputedStyle(el).backgroundColor);
            if (c.length === 3 || (c.length === 4 && c[3] > 0)) return c.slice(0, 3);
          }
          return [255, 255, 255];
        };
        const out: string[] = [];
        for (const el of document.querySelectorAll('body *')) {
          const own = [...el.childNodes].some((n) => n.nodeType === Node.TEXT_NODE && n.textContent!.trim() !== '');
          if (!own || (el as HTMLElement).offsetParent === null) continue;
          const [a, b] = [lum(rgb(getComputedStyle(el).color)), lum(background(el))];
          const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
          if (ratio < 4.5) out.push(`${el.tagName}.${el.className} "${el.textContent!.trim().slice(0, 30)}" ${ratio.toFixed(2)}`);
        }
        return out;
      });
      expect(poor, path).toEqual([]);
    }
  });

  it('reach every control by Tab, each with a name', async () => {
    await open({ seed: { keys: [KEY], messages: [{ to: '77011234567', text: 'hi' }] } }, '/_emulator/controls');
    const unnamed = await page.evaluate(() =>
      [...document.querySelectorAll('input:not([type=hidden]), select, button')]
        .filter((el) => !(el as HTMLInputElement).labels?.length && !el.textContent?.trim() && !el.getAttribute('aria-label'))
        .map((el) => el.outerHTML),
    );
    expect(unnamed).toEqual([]);
    const reached = new Set<string>();
    for (let i = 0; i < 40; i++) {
      await page.keyboard.press('Tab');
      reached.add(await page.evaluate(() => document.activeElement?.textContent?.trim() || document.activeElement?.id || ''));
    }
    for (const name of ['Skip to content', 'Show', 'Deliver pending now', 'Reset', 'Messages', 'Links', 'advance', 'Advance clock', 'rate', 'Switch faults on', 'Switch faults off']) {
      expect(reached, name).toContain(name);
    }
  });
});
