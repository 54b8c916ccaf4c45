// Tables a person reads: they fit the terminal, keys are never cut, widths
// count terminal cells, and text from the service cannot drive the terminal.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RowWriter, TABLE_LAYOUT_ROWS } from '../../src/output/format.js';
import { renderRecordView, renderTable } from '../../src/output/table.js';
import { cellWidth, wrap } from '../../src/output/width.js';
import { escapeControls } from '../../src/output/text.js';
import { runCli, tempDir } from '../helpers/run-cli.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';

const plain = { bold: (s: string) => s, dim: (s: string) => s, red: (s: string) => s, green: (s: string) => s, yellow: (s: string) => s, cyan: (s: string) => s };

const widest = (text: string) => Math.max(...text.split('\n').map(cellWidth));

const LINKS = Array.from({ length: 5 }, (_, i) => ({
  id: 417860 + i,
  code: `dd${i}j`,
  shortLink: `https://sho.rt/dd${i}j`,
  fullLink: `https://example.com/products/category/item-${i}?utm_source=sms&utm_campaign=spring-sale-2026`,
  status: 1,
  clickCnt: 12 * i,
  createTs: '2026-11-24 15:52:37',
  expirationDate: null,
  comment: `spring campaign batch ${i} 春のセール 🎉`,
}));
const LINK_FIELDS = ['id', 'code', 'shortLink', 'fullLink', 'status', 'clickCnt', 'createTs', 'expirationDate', 'comment'];

describe('cell widths', () => {
  it('counts CJK and emoji as two cells and combining marks as none', () => {
    expect(cellWidth('abc')).toBe(3);
    expect(cellWidth('春の')).toBe(4);
    expect(cellWidth('🎉')).toBe(2);
    expect(cellWidth('e\u0301')).toBe(1);
  });

  it('wraps long values without losing a character, URLs inside words', () => {
    const url = 'https://example.com/' + 'a'.repeat(70);
    const lines = wrap(url, 30);
    expect(lines.every((l) => cellWidth(l) <= 30)).toBe(true);
    expect(lines.join('')).toBe(url);
    expect(wrap('one two three four', 9)).toEqual(['one two', 'three', 'four']);
  });
});

describe('tables fit the terminal', () => {
  it('a long table is drawn as its rows arrive, in the columns chosen for its first rows: one header, every line in the width', async () => {
    let text = '';
    const out = { write: (s: string) => ((text += s), true) };
    const hidden: string[][] = [];
    const view = { format: 'table' as const, columns: LINK_FIELDS, quiet: false, primary: 'shortLink', paint: plain, width: 80, kinds: { status: 'linkStatus' as const }, onHiddenColumns: (h: string[]) => hidden.push(h) };
    const writer = new RowWriter(out, view);
    // Ids grow a digit past the first rows: their column widens, the text gives the cells back.
    const rows = Array.from({ length: TABLE_LAYOUT_ROWS + 500 }, (_, i) => ({ ...LINKS[i % 5], id: 999 + i * 10, shortLink: `https://sho.rt/c${i}` }));
    for (let i = 0; i < rows.length; i += 100) await writer.write(rows.slice(i, i + 100));
    await writer.end();
    const lines = text.trimEnd().split('\n');
    expect(lines.filter((l) => l.startsWith('id '))).toHaveLength(1);
    expect(lines).toHaveLength(rows.length + 1);
    for (const line of lines) expect(cellWidth(line)).toBeLessThanOrEqual(80);
    expect(lines.at(-1)).toMatch(new RegExp(`^${rows.at(-1)!.id} +https://sho\\.rt/c${rows.length - 1} `));
    expect(hidden).toHaveLength(1);
  });

  it.each([60, 80, 120])('at %i columns keep what a person reads: a text cut at its end, why a row failed whole, zeros first to go', (width) => {
    const text = 'Hi Anna, your table for four is ready at 19:30; reply STOP to opt out of these messages';
    const messages = renderTable([{ id: 1, to: '77011234567', status: 'DELIVRD', campaignId: 9, segNum: 1, text }], ['id', 'campaignId', 'to', 'status', 'segNum', 'text'], { paint: plain, width, kinds: { status: 'messageStatus' } });
    const line = messages.text.split('\n')[1];
    expect(line).toMatch(/Hi Anna, your /);
    if (cellWidth(line) > width - 5) expect(line).toMatch(/…$/);
    expect(messages.hidden).not.toContain('text');
    expect(messages.hidden).not.toContain('to');

    const why = 'column recipient: "+7 (701) 123-45" has 9 digits once spaces, dashes and brackets are removed: a number has 7 to 15';
    const rows = renderTable([{ row: 2, state: 'invalid', column: 'recipient', error: why, messageId: null, campaignId: null, status: null }], ['row', 'state', 'messageId', 'campaignId', 'status', 'column', 'error'], {
      paint: plain,
      width,
    });
    expect(widest(rows.text)).toBeLessThanOrEqual(width);
    // Every word of the error is there, over as many lines as it takes; the columns every row leaves empty went first.
    expect(rows.text.replace(/\s+/g, ' ')).toContain(why);
    expect(rows.hidden.every((h) => ['campaign', 'message id', 'status'].includes(h))).toBe(true);
    if (width === 60) expect(rows.hidden.sort()).toEqual(['campaign', 'message id', 'status']);

    const report = renderTable(
      [{ country: 'KZ', messages: 10, segments: 10, delivered: 7, undelivered: 0, rejected: 3, expired: 0, deleted: 0, pending: 0, deliveryRate: 0.7, medianSeconds: 2, p90Seconds: 3, cost: 0.1 }],
      ['country', 'messages', 'segments', 'delivered', 'undelivered', 'rejected', 'expired', 'deleted', 'pending', 'deliveryRate', 'medianSeconds', 'p90Seconds', 'cost'],
      { paint: plain, width: 60 },
    );
    // A row adds up: the one failure column that is not zero stays while the zeros go.
    expect(report.text.split('\n')[0]).toMatch(/rejected/);
    expect(report.hidden).toEqual(expect.arrayContaining(['undelivered', 'expired', 'deleted', 'pending']));
  });

  it.each([60, 80, 120])('link list at %i columns: no line wider, ids and short links whole; the code, inside the short link, gives way', (width) => {
    const { text, hidden } = renderTable(LINKS, LINK_FIELDS, { paint: plain, width });
    expect(widest(text)).toBeLessThanOrEqual(width);
    for (const link of LINKS) {
      expect(text).toContain(String(link.id));
      expect(text).toContain(link.shortLink);
    }
    // Headers are words, not the service's field names.
    expect(text.split('\n')[0]).toMatch(/^id +short link +full link/);
    expect(text).not.toContain('clickCnt');
    // What gives way first: the code (inside the short link), then a column with nothing to say (no link expires);
    // the full link, which tells the rows apart for a person, stays.
    if (width === 120) expect(hidden).toEqual(['code']);
    else expect(hidden.slice(0, 2)).toEqual(['code', 'expires']);
    expect(hidden).not.toContain('full link');
  });

  it('keeps the code where every column fits', () => {
    const { text, hidden } = renderTable(LINKS, ['id', 'code', 'shortLink', 'status'], { paint: plain, width: 60 });
    expect(text.split('\n')[0]).toMatch(/^id +code +short link +status$/);
    expect(hidden).toEqual([]);
  });

  it('gives way with free text first: at 120 columns the statuses and clicks stay, the URL and comment are cut with …', () => {
    const { text } = renderTable(LINKS, LINK_FIELDS, { paint: plain, width: 120, kinds: { status: 'linkStatus' } });
    const row = text.split('\n')[1];
    expect(row).toContain('active');
    expect(row).toContain('…');
    expect(text.split('\n')[0]).toContain('clicks');
  });

  it('shows everything whole when not fitting a terminal (a file or a pipe)', () => {
    const { text } = renderTable(LINKS, LINK_FIELDS, { paint: plain });
    expect(text).toContain(LINKS[0].fullLink);
    expect(text).toContain(LINKS[0].comment);
  });

  it('keeps CJK and emoji comments inside the width', () => {
    const rows = [{ id: 1, code: 'abc', comment: '春'.repeat(80) + '🎉'.repeat(10) }];
    for (const width of [60, 80]) {
      const { text } = renderTable(rows, ['id', 'code', 'comment'], { paint: plain, width });
      expect(widest(text)).toBeLessThanOrEqual(width);
    }
  });

  it('a record shows every value whole, wrapped under itself', () => {
    const text = renderRecordView(LINKS[1], LINK_FIELDS, { paint: plain, width: 60 });
    expect(widest(text)).toBeLessThanOrEqual(60);
    const fullLink = text
      .split('\n')
      .slice(text.split('\n').findIndex((l) => l.startsWith('full link')))
      .slice(0, 3)
      .map((l) => l.slice('full link'.length + 3).trim())
      .join('');
    expect(fullLink.startsWith(LINKS[1].fullLink)).toBe(true);
    expect(text).toMatch(/^created +2026-11-24 15:52:37$/m);
  });
});

describe('hostile text from the service', () => {
  const hostile = 'hi\u001b]0;pwned\u0007 \u001b[2J\u009b31m \u202eevil\u2066 \u001b]8;;https://evil.example\u001b\\click\u001b]8;;\u001b\\';

  it('escapes controls, ESC sequences and bidi overrides instead of interpreting them', () => {
    const shown = escapeControls(hostile);
    // eslint-disable-next-line no-control-regex
    expect(shown).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    expect(shown).toContain('\\x1b]0;pwned\\x07');
    expect(shown).toContain('\\u202e');
  });

  describe('through the emulator', () => {
    let emu: TestEmulator;
    beforeAll(async () => {
      emu = await startTestEmulator();
      await emu.call('Link/Create', { data: { fullLink: 'https://example.com/x', comment: hostile } });
    });
    afterAll(() => emu.close());
    const env = () => ({ SMSLINK_BASE_URL: emu.url, SMSLINK_API_KEY: emu.key });

    it('a table shows the comment escaped; JSON keeps it exact', async () => {
      const table = await runCli(['link', 'list', '--no-color'], { env: env(), tty: true, columns: 200 });
      expect(table.code).toBe(0);
      expect(table.stdout).not.toContain('\u001b');
      expect(table.stdout).not.toContain('\u202e');
      expect(table.stdout).toContain('hi\\x1b]0;pwned\\x07');
      const record = await runCli(['link', 'get', '1', '-o', 'table', '--no-color'], { env: env() });
      // The exact bytes: every control shown as its escape, the rest as it was.
      expect(record.stdout.split('\n').find((l) => l.startsWith('comment'))).toBe(
        'comment     hi\\x1b]0;pwned\\x07 \\x1b[2J\\x9b31m \\u202eevil\\u2066 \\x1b]8;;https://evil.example\\x1b\\click\\x1b]8;;\\x1b\\',
      );
      const json = await runCli(['link', 'get', '1', '-o', 'json'], { env: env() });
      expect(JSON.parse(json.stdout).comment).toBe(hostile);
      const ndjson = await runCli(['link', 'list', '-o', 'ndjson'], { env: env() });
      expect(JSON.parse(ndjson.stdout.trim()).comment).toBe(hostile);
    });

    it('csv keeps values exact by default; --csv-safe defuses formulas', async () => {
      await emu.call('Link/Create', { data: { fullLink: 'https://example.com/f', comment: '=HYPERLINK("http://evil")' } });
      const exact = await runCli(['link', 'list', '-o', 'csv', '--fields', 'id,comment'], { env: env() });
      expect(exact.stdout).toContain('"=HYPERLINK(""http://evil"")"');
      expect(exact.stdout).toContain('\u001b]0;pwned');
      const safe = await runCli(['link', 'list', '-o', 'csv', '--fields', 'id,comment', '--csv-safe'], { env: env() });
      expect(safe.stdout).toContain(`"'=HYPERLINK(""http://evil"")"`);
      const tsv = await runCli(['link', 'list', '-o', 'tsv', '--fields', 'comment', '--csv-safe'], { env: env() });
      expect(tsv.stdout.split('\n')).toContain(`'=HYPERLINK("http://evil")`);
    });
  });
});

describe('link list at a terminal', () => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator();
    for (let i = 0; i < 30; i++) {
      await emu.call('Link/Create', { data: { fullLink: `https://example.com/products/item-${i}?utm_source=sms&utm_campaign=spring`, comment: `batch ${i} 春の 🎉` } });
    }
  });
  afterAll(() => emu.close());

  it.each([60, 80, 120])('fits %i columns with every short link whole, and names what it left out', async (columns) => {
    const r = await runCli(['link', 'list', '--no-color'], { env: { SMSLINK_BASE_URL: emu.url, SMSLINK_API_KEY: emu.key }, tty: true, columns });
    expect(r.code).toBe(0);
    expect(widest(r.stdout)).toBeLessThanOrEqual(columns);
    const shortLinks = [...r.stdout.matchAll(/http:\/\/127\.0\.0\.1:\d+\/[0-9A-Za-z]+/g)].map((m) => m[0]);
    expect(shortLinks).toHaveLength(25);
    // The full link tells the rows apart: it is cut, never left out; the status stays beside it.
    expect(r.stdout.split('\n')[0]).toMatch(/^id +short link +full link +status/);
    // No link was clicked nor expires: those columns of zeros and dashes give way before any column that says something.
    expect(r.stderr).toMatch(columns < 120 ? /Not shown at this width: code, expires, clicks\b/ : /Not shown at this width: code \(/);
    expect(r.stderr.replace(/\s+/g, ' ')).toContain('Showing 1-25 of 30 links. Next: `--page 1`, or `--all` for every page.');
  });
});

describe('link campaign at a terminal', () => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator();
    await emu.call('Message/SendSmsMessage', { recipient: '77011234567', text: 'see https://example.com/a', params: { shortenLinks: 1 } });
  });
  afterAll(() => emu.close());

  it('keeps the code where the table with it fits, once a later column has given way', async () => {
    // Not every column fits: the code goes first, then the comment (no link has one), which frees room for the code again.
    const r = await runCli(['link', 'campaign', '1', '--no-color'], { env: { SMSLINK_BASE_URL: emu.url, SMSLINK_API_KEY: emu.key }, tty: true, columns: 80 });
    expect(r.code, r.stderr).toBe(0);
    expect(widest(r.stdout)).toBeLessThanOrEqual(80);
    expect(r.stdout).toMatch(/^id +code +short link +full link +clicks +redirects\n1 +\w{4} +http:\/\/127\.0\.0\.1:\d+\/\w{4} +https:\/\/example\.com\/a +0 +0\n$/);
    expect(r.stderr).toContain('Not shown at this width: comment (see --fields).');
  });
});

describe('message status at a terminal', () => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator();
    await emu.call('Message/SendSmsMessage', { recipient: '77011234567', text: 'hello' });
    await emu.call('Message/SendSmsMessage', { recipient: '77011234568', text: 'hello' });
  });
  afterAll(() => emu.close());
  const env = () => ({ SMSLINK_BASE_URL: emu.url, SMSLINK_API_KEY: emu.key });

  it('one id is shown as a record, several as a table; scripts get a list either way', async () => {
    const one = await runCli(['message', 'status', '1', '--no-color'], { env: env(), tty: true, columns: 80 });
    expect(one.stdout).toMatch(/^id +1$/m);
    // Tables say the status in words; scripts keep the service's code.
    expect(one.stdout).toMatch(/^status +new \(NEW\)$/m);
    expect(one.stdout).toMatch(/^segments +1$/m);
    const two = await runCli(['message', 'status', '1', '2', '--no-color'], { env: env(), tty: true, columns: 80 });
    // At a terminal the table also says whom each went to and what it said.
    expect(two.stdout.split('\n')[0]).toMatch(/^id +to +status +segments +sent +status changed +text$/);
    expect(two.stdout).toMatch(/^1 +77011234567 +new +1 .* hello$/m);
    expect(JSON.parse((await runCli(['message', 'status', '1'], { env: env() })).stdout)).toMatchObject([{ status: 'NEW' }]);
    expect((await runCli(['message', 'status', '1', '2', '-o', 'csv'], { env: env() })).stdout).toMatch(/^1,NEW,/m);
    expect((await runCli(['message', 'status', '1', '-q'], { env: env() })).stdout).toBe('NEW\n');
  });

  it('status words are coloured: yellow while under way', async () => {
    const r = await runCli(['message', 'list'], { env: { ...env(), FORCE_COLOR: '1' }, tty: true, columns: 120 });
    expect(r.stdout).toContain('\x1b[33mnew');
    expect(r.stdout).not.toContain('NEW');
  });
});

describe('every table fits 60, 80 and 120 columns', () => {
  let emu: TestEmulator;
  let dir: string;
  beforeAll(async () => {
    emu = await startTestEmulator();
    for (let i = 0; i < 6; i++) {
      await emu.call('Link/Create', { data: { fullLink: `https://example.com/very/long/path/number/${i}?with=query&and=more`, comment: `comment ${i} 春のセール 🎉 with more words` } });
      await emu.call('Message/SendSmsMessage', { recipient: `7701123456${i}`, text: `Hello ${i}, your order is ready at https://example.com/orders/${i} 春`, params: { shortenLinks: 1 } });
    }
    dir = tempDir();
    writeFileSync(join(dir, 'links.csv'), 'fullLink,comment\nhttps://example.com/x,ok\nnot a url,bad row with a long reason\n');
  });
  afterAll(() => emu.close());

  const commands: Array<[string, string[], RegExp]> = [
    ['link list', ['link', 'list'], /short link/],
    ['link campaign', ['link', 'campaign', '1'], /short link/],
    ['message list', ['message', 'list'], /^id +/],
    ['message status', ['message', 'status', '1', '2', '3'], /^id +to +status/],
    ['config list', ['config', 'list'], /^setting +value/],
    ['bulk results', ['link', 'create', '--from-file', 'LINKS'], /^row/],
    ['bulk check', ['link', 'create', '--from-file', 'LINKS', '--validate-only'], /^row/],
  ];

  it.each(commands.flatMap(([name, args, header]) => [60, 80, 120].map((columns) => [name, columns, args, header] as const)))(
    '%s at %i columns',
    async (_name, columns, args, header) => {
      const r = await runCli(
        args.map((a) => (a === 'LINKS' ? join(dir, 'links.csv') : a)),
        { env: { SMSLINK_BASE_URL: emu.url, SMSLINK_API_KEY: emu.key, NO_COLOR: '1' }, tty: true, columns },
      );
      expect(r.stdout, r.stderr).toMatch(header);
      for (const line of r.stdout.split('\n')) expect(cellWidth(line), line).toBeLessThanOrEqual(columns);
      for (const line of r.stderr.split('\n').filter((l) => l.startsWith('Not shown') || l.startsWith('Showing'))) expect(cellWidth(line), line).toBeLessThanOrEqual(columns);
    },
  );
});

describe('invisible characters (zero-width, BOM, format, bidi, C0/C1) in a table', () => {
  /** One value per kind: each would draw nothing (or reorder the line), and string-width 4 counts most of them one cell. */
  const KINDS: Array<[kind: string, text: string]> = [
    ['zero-width space', 'buy\u200bnow'],
    ['byte order mark', '\ufeffhello'],
    ['soft hyphen, word joiner, ZWNJ, ZWJ', 'soft\u00adhy\u2060ph\u200cen\u200dx'],
    ['bidi override (Trojan Source)', 'see \u202egnp.exe\u202c ok'],
    ['bidi isolates and marks', '\u2066iso\u2069 \u200fmark\u200e'],
    ['tag characters', 'tag\u{e0041}\u{e0042}'],
    ['C0 controls', 'bell\u0007 cr\r esc\u001b[2J'],
    ['C1 controls', 'nel\u0085 csi\u009b31m'],
    ['line separator', 'one\u2028two'],
  ];
  /** What must not reach the terminal: Cc but the newline, Cf, Zl, Zp. */
  // eslint-disable-next-line no-control-regex
  const INVISIBLE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\p{Cf}\p{Zl}\p{Zp}]/u;

  it('each is shown as its escape, as JavaScript writes it; emoji sequences that join by ZWJ or tags stay whole', () => {
    expect(escapeControls('buy\u200bnow \ufeff \u00ad \u200d \u{e0041}')).toBe('buy\\u200bnow \\ufeff \\xad \\u200d \\u{e0041}');
    const pictures = 'family 👨‍👩‍👧 rainbow 🏳️‍🌈 coder 👩🏽‍💻 wales 🏴\u{e0067}\u{e0062}\u{e0077}\u{e006c}\u{e0073}\u{e007f}';
    expect(escapeControls(pictures)).toBe(pictures);
    // A ZWJ between an emoji and a letter joins nothing: shown.
    expect(escapeControls('🎉\u200da')).toBe('🎉\\u200da');
    expect(escapeControls('lone \ud800 and \udc00')).toBe('lone \\ud800 and \\udc00');
    // Tags after a black flag that spell no flag are hidden text ("ASCII smuggling"): escaped, every one.
    const hidden = [...'wire money'].map((c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0))).join('');
    const smuggled = escapeControls(`Pay here 🏴${hidden}\u{e007f}`);
    expect(smuggled).toBe('Pay here 🏴\\u{e0077}\\u{e0069}\\u{e0072}\\u{e0065}\\u{e0020}\\u{e006d}\\u{e006f}\\u{e006e}\\u{e0065}\\u{e0079}\\u{e007f}');
  });

  it("misses no format character, line or paragraph separator of Node's Unicode (the quick look lists them by hand)", () => {
    const missed: string[] = [];
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const ch = String.fromCodePoint(cp);
      if (/[\p{Cf}\p{Zl}\p{Zp}\p{Cc}]/u.test(ch) && ch !== '\t' && ch !== '\n' && escapeControls(`a${ch}b`).includes(ch)) missed.push(cp.toString(16));
    }
    expect(missed).toEqual([]);
  });

  describe('through the emulator, at 80 columns', () => {
    let emu: TestEmulator;
    beforeAll(async () => {
      emu = await startTestEmulator({
        seed: {
          senders: ['SHOP\u200b', '\u202eKNAB'],
          messages: KINDS.map(([, text], i) => ({ to: `7701000000${i}`, text, from: i % 3 === 0 ? 'SHOP\u200b' : i % 3 === 1 ? '\u202eKNAB' : undefined, status: 'UNDELIV' })),
        },
      });
      for (const [, text] of KINDS) await emu.call('Link/Create', { data: { fullLink: 'https://example.com/x', comment: text } });
    });
    afterAll(() => emu.close());
    const env = () => ({ SMSLINK_BASE_URL: emu.url, SMSLINK_API_KEY: emu.key });

    /** Cells as a terminal draws them: format characters take none (string-width 4 counts them one each). */
    const drawn = (text: string) => cellWidth(text.replace(/\p{Cf}/gu, ''));
    /** The cell each column of `line` starts at: after each run of 2+ spaces that follows text. */
    const starts = (line: string) => [...line.matchAll(/ {2,}(?=\S)/g)].map((m) => drawn(line.slice(0, m.index + m[0].length)));

    it.each([
      ['message list', ['message', 'list', '--fields', 'id,from,text,status,segNum']],
      ['link list', ['link', 'list', '--fields', 'id,comment,status,clickCnt']],
    ])('%s: every row has its columns at the same cells, and nothing invisible is printed', async (_, args) => {
      const r = await runCli([...args, '--no-color'], { env: env(), tty: true, columns: 80 });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).not.toMatch(INVISIBLE);
      const lines = r.stdout.trimEnd().split('\n');
      expect(lines).toHaveLength(KINDS.length + 1);
      expect(widest(r.stdout)).toBeLessThanOrEqual(80);
      expect(new Set(lines.map((l) => starts(l).join(','))).size, r.stdout).toBe(1);
      expect(r.stdout).toContain('\\u202e');
      expect(r.stdout).toContain('\\ufeff');
    });

    it('a record shows each escaped; JSON, CSV and NDJSON keep the text exact', async () => {
      for (const [i, [kind, text]] of KINDS.entries()) {
        const record = await runCli(['message', 'get', String(i + 1), '-o', 'table', '--no-color'], { env: env() });
        expect(record.code, record.stderr).toBe(0);
        expect(record.stdout, kind).not.toMatch(INVISIBLE);
        expect(record.stdout, kind).toContain(escapeControls(text).split('\n')[0]);
      }
      const json = await runCli(['message', 'list', '--all', '-o', 'json'], { env: env() });
      // (JSON's indenting once put two spaces after a line separator inside a string.)
      expect((JSON.parse(json.stdout) as Array<{ text: string }>).map((m) => m.text).sort()).toEqual(KINDS.map(([, t]) => t).sort());
      const ndjson = await runCli(['link', 'list', '--all', '-o', 'ndjson'], { env: env() });
      expect(ndjson.stdout).toContain(JSON.stringify(KINDS[3][1]).slice(1, -1));
      const csv = await runCli(['message', 'list', '--fields', 'text', '-o', 'csv'], { env: env() });
      expect(csv.stdout).toContain('buy\u200bnow');
      expect(csv.stdout).toContain('see \u202egnp.exe\u202c ok');
    });
  });
});
