// The inspector's pages over HTTP: routes beside the short links, escaping,
// the request log, live events, per-account views, and --no-inspector.
// test/browser/ drives the same pages in Chromium.
import { join } from 'node:path';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { startTestEmulator, TOOK_HTML, type TestEmulator } from '../helpers/emulator.js';
import { tempDir } from '../helpers/run-cli.js';

let emu: TestEmulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

async function page(path: string) {
  const res = await request(`${emu!.url}${path}`);
  return { status: res.statusCode, headers: res.headers, text: await res.body.text() };
}

const SCRIPT = '<script>alert("x")</script>';
const LONG_KEY = 'live-key-0123456789abcdefghij';

describe('inspector pages', () => {
  it('live beside the short links: /links is a link, /_emulator/links the page', async () => {
    emu = await startTestEmulator({ seed: { links: [{ fullLink: 'https://example.com/a', code: 'links' }, { fullLink: 'https://example.com/b', code: 'inbox' }] } });
    expect((await page('/links')).status).toBe(302);
    expect((await page('/inbox')).status).toBe(302);
    const links = await page('/_emulator/links');
    expect(links.status).toBe(200);
    expect(links.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(links.text).toContain('https://example.com/a');
    expect((await page('/')).text).toContain('<h1>Messages</h1>');
    expect((await page('/_emulator/nothing')).status).toBe(404);
  });

  it('escape every stored value: a <script> in a comment, a text or a sender shows as text', async () => {
    emu = await startTestEmulator({ senders: ['<b>Shop'], seed: { links: [{ fullLink: 'https://example.com/x?a="1"&b=<i>', comment: SCRIPT }] } });
    await emu.call('Message/SendSmsMessage', { recipient: '77011234567', text: `Hi ${SCRIPT} & "you"`, from: '<b>Shop' });
    for (const path of ['/', '/_emulator/links', '/_emulator/links/1', '/_emulator/campaigns']) {
      const { text, headers } = await page(path);
      expect(text, path).not.toContain('<script>alert');
      expect(text, path).not.toContain('<b>Shop');
      expect(headers['content-security-policy'], path).toMatch(/script-src 'self'/);
    }
    expect((await page('/')).text).toContain('Hi &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &quot;you&quot;');
    expect((await page('/_emulator/links')).text).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
  });

  it('show each account on its own, its key masked', async () => {
    emu = await startTestEmulator({ apiKeys: [LONG_KEY, 'short-key-2'] });
    await emu.call('Link/Create', { data: { fullLink: 'https://example.com/mine' } }, LONG_KEY);
    await emu.call('Link/Create', { data: { fullLink: 'https://example.com/theirs' } }, 'short-key-2');
    const first = await page('/_emulator/links');
    expect(first.text).toContain('https://example.com/mine');
    expect(first.text).not.toContain('https://example.com/theirs');
    expect((await page('/_emulator/links?account=2')).text).toContain('https://example.com/theirs');
    const accounts = await page('/_emulator/accounts');
    expect(accounts.text).toContain('Key 1 (********ghij)');
    expect(accounts.text).toContain('Key 2 (************)');
    for (const p of [first, accounts]) {
      expect(p.text).not.toContain(LONG_KEY);
      expect(p.text).not.toContain('short-key-2');
    }
  });

  it('the chart of a link holds the numbers Link/GetStats answers', async () => {
    emu = await startTestEmulator();
    const { data } = await emu.call('Link/Create', { data: { fullLink: 'https://example.com/c' } });
    const { id, code } = data as { id: string; code: string };
    for (let i = 0; i < 3; i++) await emu.raw('GET', `/${code}`);
    emu.clock.advance(2 * 3_600_000);
    await emu.raw('GET', `/${code}`);
    for (const type of ['daily', 'hourly'] as const) {
      const stats = (await emu.call('Link/GetStats', { ids: [Number(id)], type })).data as { items: Array<Record<string, unknown>>; totals: Record<string, number> };
      const html = (await page(`/_emulator/links/${id}?type=${type}`)).text;
      const rows = [...html.matchAll(/<tr><th scope="row">([^<]+)<\/th><td class="num">(\d+)<\/td><td class="num">(\d+)<\/td><\/tr>/g)].map((m) => [m[1], Number(m[2]), Number(m[3])]);
      expect(rows).toEqual(stats.items.map((r) => [r.param, Number(r.clicks0), Number(r.redirects0)]));
      expect(html).toContain(`<span class="total-clicks">${stats.totals.totalClicks0}</span>`);
      expect(stats.totals.totalClicks0).toBe(4);
    }
  });

  it('"Deliver pending now" delivers what is on its way and leaves the clock alone, with or without the page script', async () => {
    emu = await startTestEmulator();
    await emu.call('Message/SendSmsMessage', { recipient: '77010002222', text: 'expires after a day' });
    const inbox = (await page('/')).text;
    expect(inbox).toMatch(/<form method="post" action="\/_emulator\/deliver" data-control>\s*<button type="submit"[^>]*>Deliver pending now<\/button>/);
    // As a browser without the script sends it: a form, then back to the controls.
    const posted = await emu.raw('POST', '/_emulator/deliver', '', { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html,application/xhtml+xml,*/*;q=0.8' });
    expect(posted.status).toBe(303);
    const controls = (await page('/_emulator/controls')).text;
    expect(controls).toContain('<dt>Emulator time</dt><dd>2025-01-15 10:00:00 (UTC)</dd>');
    expect(controls).toContain('<dt>Messages on their way</dt><dd>none</dd>');
    // A message shown whole says its status as the CLI's records do: the word, and the service's code.
    expect((await page('/')).text).toContain('<span class="badge bad">expired (EXPIRED)</span>');
  });

  it('show the date of a status that came on another day than its message was sent', async () => {
    emu = await startTestEmulator();
    await emu.call('Message/SendSmsMessage', { recipient: '77010002222', text: 'expires after a day' });
    emu.clock.advance(2 * 86_400_000);
    const steps = [...(await page('/')).text.matchAll(/<span class="st">(\w+)<\/span> <time datetime="([^"]+)">([^<]+)<\/time>/g)].map((m) => m.slice(1));
    expect(steps).toEqual([
      ['new', '2025-01-15 10:00:00', '10:00:00'],
      ['queued', '2025-01-15 10:00:01', '10:00:01'],
      ['accepted', '2025-01-15 10:00:02', '10:00:02'],
      // The validity (a day) runs from the hand-over to the operator (ENQUEUD), so it ends a second before the next day's 10:00:02.
      ['expired', '2025-01-16 10:00:01', '2025-01-16 10:00:01'],
    ]);
  });

  it('filter messages by a status or a group of them (failed, pending), as message list --status does', async () => {
    emu = await startTestEmulator();
    for (const to of ['77010000001', '77010000002', '77010000003']) await emu.call('Message/SendSmsMessage', { recipient: to, text: `to ${to}` });
    const setStatus = (id: number, status: string) =>
      request(`${emu!.url}/_emulator/messages/status`, { method: 'POST', body: JSON.stringify({ id, status }), headers: { 'content-type': 'application/json' } }).then((r) => r.body.text());
    await setStatus(1, 'UNDELIV');
    await setStatus(2, 'REJECTD');
    const shown = async (status: string) => [...(await page(`/?status=${status}`)).text.matchAll(/<span class="num">\+(\d+)<\/span>/g)].map((m) => m[1]).sort();
    expect(await shown('failed')).toEqual(['77010000001', '77010000002']);
    expect(await shown('pending')).toEqual(['77010000003']);
    expect(await shown('REJECTD')).toEqual(['77010000002']);
    const form = (await page('/?status=failed')).text;
    expect(form).toContain('<option value="failed" selected>failed (undelivered, rejected, expired, deleted)</option>');
    expect(form).toContain('<option value="pending">pending (new, queued, accepted, partly delivered)</option>');
  });

  it('render only the live region for the page script (?partial=1), with the time of day the page writes times in', async () => {
    emu = await startTestEmulator();
    const partial = await page('/_emulator/links?partial=1');
    expect(partial.text).not.toContain('<html');
    expect(partial.text).toContain('No links yet');
    // The emulator's clock, as the page's times are: the script says "Updated at 10:00:00", never the browser's own time and zone.
    expect(partial.headers['x-emulator-time']).toBe('10:00:00');
    emu.clock.advance(2_000);
    expect((await page('/?partial=1')).headers['x-emulator-time']).toBe('10:00:02');
    expect((await page('/')).headers['x-emulator-time']).toBeUndefined();
  });
});

describe('the request log', () => {
  /** The rows of the Requests page: time, operation, result, key, ms, and what opens below. */
  const rows = (text: string) =>
    [...text.matchAll(new RegExp(String.raw`<li><details id="r\d+"><summary>\s*<span class="when">([^<]+)<\/span>\s*<span class="op">([^<]+)<\/span>\s*<span class="badge \w+">([^<]+)<\/span>\s*(?:<span class="fault">[^<]*<\/span>\s*)?(?:<span class="key">([^<]+)<\/span>\s*)?<span class="ms">${TOOK_HTML}<\/span>\s*<\/summary>([\s\S]*?)<\/details><\/li>`, 'g'))].map((m) => m.slice(1));

  it('shows each call with its operation, result code and time, the key masked', async () => {
    emu = await startTestEmulator({ apiKeys: [LONG_KEY] });
    await emu.call('Link/Create', { data: { fullLink: 'https://example.com/logged' } }, LONG_KEY);
    await emu.call('Link/Get', { id: 999 }, LONG_KEY);
    await emu.call('Link/List', {}, 'wrong-key-0123456789xyz');
    const { text } = await page('/_emulator/requests');
    expect(rows(text).map((r) => r.slice(0, 4))).toEqual([
      ['2025-01-15 10:00:00', 'Link/List', 'code 8 authentication failed (missing, wrong or expired API key)', 'unknown key (********9xyz)'],
      ['2025-01-15 10:00:00', 'Link/Get', 'code 2 record not found, or not accessible to this key', 'Key 1 (********ghij)'],
      ['2025-01-15 10:00:00', 'Link/Create', 'code 0 success', 'Key 1 (********ghij)'],
    ]);
    expect(text).not.toContain(LONG_KEY);
    expect(text).not.toContain('wrong-key-0123456789xyz');
  });

  it('a row opens to the parameters sent and the answer got, the key masked wherever it was sent', async () => {
    emu = await startTestEmulator({ apiKeys: [LONG_KEY] });
    // The key in the query and again in the body, and echoed in a text.
    await emu.raw('POST', `/service/Link/Create?output=json&api=v1&apiKey=${LONG_KEY}`, `apiKey=${LONG_KEY}&data[fullLink]=https%3A%2F%2Fexample.com%2F%3Fq%3D%3Cb%3E&data[comment]=key%20${LONG_KEY}`, {
      'content-type': 'application/x-www-form-urlencoded',
    });
    const [created] = rows((await page('/_emulator/requests')).text);
    const opened = created[4];
    const params = [...opened.matchAll(/<dt>([^<]*)<\/dt><dd>([^<]*)<\/dd>/g)].map((m) => [m[1], m[2]]);
    expect(params).toEqual([
      ['output', 'json'],
      ['api', 'v1'],
      ['apiKey', '********ghij'],
      ['apiKey', '********ghij'],
      ['data[fullLink]', 'https://example.com/?q=&lt;b&gt;'],
      ['data[comment]', 'key ********ghij'],
    ]);
    const answer = /<pre class="answer">([^<]*)<\/pre>/.exec(opened)![1];
    expect(JSON.parse(answer.replace(/&quot;/g, '"'))).toMatchObject({ code: 0, data: { id: '1' }, message: '' });
    expect(opened).not.toContain(LONG_KEY);
  });

  it('filters by operation (any spelling) and result code in the query string, escaping what it is given', async () => {
    emu = await startTestEmulator();
    const { data } = await emu.call('Link/Create', { data: { fullLink: 'https://example.com/f' } });
    await emu.call('link/get', { id: 999 });
    await emu.call('Link/Get', { id: Number((data as { id: string }).id) });
    await emu.raw('GET', `/${(data as { code: string }).code}`);
    const ops = async (query: string) => rows((await page(`/_emulator/requests?${query}`)).text).map((r) => `${r[1]} ${r[2].split(' ').slice(0, 2).join(' ')}`);
    expect(await ops('op=Link%2FGet')).toEqual(['Link/Get code 0', 'link/get code 2']);
    expect(await ops('op=Link%2FGet&code=2')).toEqual(['link/get code 2']);
    expect(await ops('code=0')).toEqual(['Link/Get code 0', 'Link/Create code 0']);
    expect(await ops('op=visit')).toEqual([expect.stringMatching(/^visit \/\w+ redirected \(302\)$/)]);
    const none = await page('/_emulator/requests?op=%3Cscript%3E&code=%22%3E%3Cb%3E');
    expect(none.text).toContain('None of the 4 latest requests matches this filter.');
    expect(none.text).not.toContain('<script>');
    expect(none.text).not.toContain('"><b>');
    // The form keeps the choice, and works without script (GET).
    const form = (await page('/_emulator/requests?op=Link%2FGet&code=2')).text;
    expect(form).toContain('<form class="filters" method="get" action="/_emulator/requests"');
    expect(form).toContain('<option value="Link/Get" selected>Link/Get</option>');
    expect(form).toContain('<option value="2" selected>2 record not found, or not accessible to this key</option>');
  });
});

describe('calls of operations this emulator does not model', () => {
  const rows = (text: string) => [...text.matchAll(/<span class="op">([^<]+)<\/span>\s*<span class="badge \w+">([^<]+)<\/span>/g)].map((m) => `${m[1]}: ${m[2]}`);

  it('are counted by operation on the request log, shown as not modelled, and filtered with one link', async () => {
    const lines: string[] = [];
    emu = await startTestEmulator({ requestLog: (line) => lines.push(line) });
    await emu.call('Campaign/Create', { data: { name: 'spring' } });
    await emu.call('campaign/create', { data: { name: 'autumn' } });
    await emu.call('TaskQueue/GetStatus', { id: 7 });
    await emu.call('Campaign/GetLinks', { campaignId: 987 });
    await emu.call('Link/List');
    const { text } = await page('/_emulator/requests');
    expect(text).toContain(
      '<p class="note" role="status">3 requests called operations of the live service that this emulator does not model, so nothing was done: Campaign/Create (2), TaskQueue/GetStatus (1). <a href="/_emulator/requests?code=9">Show them</a></p>',
    );
    expect(rows(text)).toEqual([
      'Link/List: code 0 success',
      'Campaign/GetLinks: code 2 record not found, or not accessible to this key',
      'TaskQueue/GetStatus: code 9: not modelled here',
      'campaign/create: code 9: not modelled here',
      'Campaign/Create: code 9: not modelled here',
    ]);
    expect(rows((await page('/_emulator/requests?code=9')).text)).toHaveLength(3);
    // serve's line says it too (lines are written together, a little later).
    await expect.poll(() => lines.filter((l) => l.includes('TaskQueue/GetStatus')), { timeout: 10_000 }).toEqual([expect.stringMatching(/ {2}TaskQueue\/GetStatus {2}code 9 \(not modelled\) {2}/)]);
  });

  it('leave no note when there are none', async () => {
    emu = await startTestEmulator();
    await emu.call('Link/List');
    expect((await page('/_emulator/requests')).text).not.toContain('does not model');
  });
});

describe('live updates', () => {
  it('tell an open page which topics changed (how soon: `npm run bench`, the inspector-live row)', async () => {
    emu = await startTestEmulator();
    const events = await request(`${emu.url}/_emulator/events`);
    expect(events.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    let seen = '';
    const changed = new Promise<void>((resolve) => {
      events.body.on('data', (chunk: Buffer) => {
        seen += chunk.toString();
        if (/event: change\ndata: .*"messages"/.test(seen)) resolve();
      });
    });
    await emu.call('Message/SendSmsMessage', { recipient: '77011234567', text: 'live' });
    await changed;
    expect(seen).toMatch(/"topics":\[[^\]]*"log"/);
    events.body.destroy();
  });

  it('report statuses as they come due while a page watches', async () => {
    // The system clock this time: the lifecycle runs in real time, 20 times faster
    // (ENQUEUD at 50 ms, ACCEPTD at 100 ms, DELIVRD at 250 ms).
    const live = await startEmulator({ port: 0, timeScale: 20 });
    try {
      const events = await request(`${live.url}/_emulator/events`);
      let changes = 0;
      events.body.on('data', (chunk: Buffer) => {
        for (const m of chunk.toString().matchAll(/event: change\ndata: (.*)\n/g)) if (m[1].includes('"messages"')) changes += 1;
      });
      await request(`${live.url}/service/Message/SendSmsMessage?output=json&api=v1&apiKey=sandbox`, {
        method: 'POST',
        body: 'recipient=77011234567&text=hi',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }).then((r) => r.body.text());
      // The send, then one event per status change, none asked for (the timers fire later on a busy machine: waited for).
      await expect.poll(() => changes, { timeout: 10_000 }).toBeGreaterThanOrEqual(4);
      const after = (await (await request(`${live.url}/_emulator/messages`)).body.json()) as { messages: Array<{ status: string; timeline: unknown[] }> };
      expect(after.messages[0].status).toBe('DELIVRD');
      events.body.destroy();
    } finally {
      await live.close();
    }
  });
});

describe('a database file shared with other processes', () => {
  it('tells an open page about what another process wrote (--sandbox commands while serve runs)', async () => {
    const db = join(tempDir(), 'shared.db');
    emu = await startTestEmulator({ db });
    const other = await startEmulator({ port: 0, db, inspector: false });
    try {
      const events = await request(`${emu.url}/_emulator/events`);
      let seen = '';
      const changed = new Promise<void>((resolve) =>
        events.body.on('data', (chunk: Buffer) => {
          seen += chunk.toString();
          if (seen.includes('"links"')) resolve();
        }),
      );
      await new Promise((r) => setTimeout(r, 100));
      // Written by the other emulator: nothing passes through this one's request path.
      const made = await request(`${other.url}/service/Link/Create?output=json&api=v1&apiKey=sandbox`, {
        method: 'POST',
        body: 'data[fullLink]=https%3A%2F%2Fexample.com%2Felsewhere',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(((await made.body.json()) as { code: number }).code).toBe(0);
      await changed;
      expect((await page('/_emulator/links')).text).toContain('https://example.com/elsewhere');
      events.body.destroy();
    } finally {
      await other.close();
    }
  });
});

describe('--no-inspector (inspector: false)', () => {
  it('answers / as before and no pages, but keeps the control API', async () => {
    emu = await startTestEmulator({ inspector: false });
    expect(emu.emulator.inspectorUrl).toBeNull();
    const root = await page('/');
    expect(root.text).toContain('This is the smslink emulator');
    expect((await page('/_emulator/links')).status).toBe(404);
    expect((await page('/_emulator/events')).status).toBe(404);
    expect((await page('/_emulator/messages')).status).toBe(200);
  });
});
