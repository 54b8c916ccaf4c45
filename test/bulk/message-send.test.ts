// `message send --from-file`: one message per row, its text from the row or
// from a --text template filled from the row's columns; flags fill empty
// cells. Against a recording server with a fake service behind it.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { runCli, tempDir } from '../helpers/run-cli.js';
import { ndjson, useBulkService } from '../helpers/bulk-files.js';

const bulk = useBulkService();
const { file } = bulk;

describe('message send --from-file', () => {
  it('fills --text placeholders from the row and flag defaults', async () => {
    const input = file('sms.csv', 'recipient,name,code,validity\n+7 701 000 00 01,Ann,4711,\n77010000002,Bob,0815,120\n');
    const r = await runCli(['message', 'send', '--from-file', input, '--text', 'Hi {{name}}, your code {{ code }}', '--validity', '90', '--from', 'SHOP'], { env: bulk.env });
    expect(r.code).toBe(0);
    const forms = bulk.server.requests.map((q) => Object.fromEntries(new URLSearchParams(q.body)));
    expect(forms).toContainEqual({ recipient: '77010000001', text: 'Hi Ann, your code 4711', from: 'SHOP', 'params[validity]': '90' });
    expect(forms).toContainEqual({ recipient: '77010000002', text: 'Hi Bob, your code 0815', from: 'SHOP', 'params[validity]': '120' });
  });

  it('columns used by --text placeholders are not reported as ignored', async () => {
    const input = file('sms.csv', 'recipient,name,code\n77011234567,Ann,4711\n');
    const r = await runCli(['message', 'send', '--from-file', input, '--text', 'Hi {{name}}, your code is {{code}}'], { env: bulk.env });
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain('ignoring columns');
  });

  it('an empty file is said to be empty, exit 2, nothing sent', async () => {
    for (const body of ['', '\n\n']) {
      const empty = await runCli(['message', 'send', '--from-file', file('empty.csv', body), '--text', 'Hi'], { env: bulk.env });
      expect([empty.code, empty.stderr]).toEqual([2, expect.stringContaining('--from-file: the input is empty: it needs a recipient (or to) column')]);
    }
    expect(bulk.server.requests).toHaveLength(0);
  });

  it('a flag with no column of its own (--shorten-links, --name with {{name}} in the text) applies to every row', async () => {
    const input = file('sms.csv', 'recipient,name\n77010000001,Ann\n77010000002,Bob\n');
    const r = await runCli(['message', 'send', '--from-file', input, '--text', 'Hi {{name}} https://example.com/x', '--shorten-links', '--name', 'spring'], { env: bulk.env });
    expect(r.code).toBe(0);
    const forms = bulk.server.requests.map((q) => Object.fromEntries(new URLSearchParams(q.body)));
    expect(forms.map((f) => [f.text, f['params[shortenLinks]'], f['params[name]']]).sort()).toEqual([
      ['Hi Ann https://example.com/x', '1', 'spring'],
      ['Hi Bob https://example.com/x', '1', 'spring'],
    ]);
  });

  it('a placeholder names a column whose header holds spaces, as a spreadsheet writes it', async () => {
    const input = file('sms.csv', 'recipient,First Name,code\n77010000001,Ann,4711\n');
    const r = await runCli(['message', 'send', '--from-file', input, '--text', 'Hi {{First Name}}, your code {{ code }}'], { env: bulk.env });
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain('ignoring columns');
    const forms = bulk.server.requests.map((q) => Object.fromEntries(new URLSearchParams(q.body)));
    expect(forms).toEqual([{ recipient: '77010000001', text: 'Hi Ann, your code 4711' }]);
  });

  it('a placeholder with spaces that is no column stops the run: it is never sent as typed', async () => {
    const input = file('sms.csv', 'recipient,name\n77010000001,Ann\n');
    const r = await runCli(['message', 'send', '--from-file', input, '--text', 'Hi {{first name}}', '--dry-run'], { env: bulk.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--text: unknown placeholder {{first name}}; the input's columns are recipient, name");
    expect(r.stdout).not.toContain('first');
    expect(bulk.server.requests).toHaveLength(0);
  });

  it('a header that names a column twice stops every kind of run before anything is sent, naming the column and both places', async () => {
    const input = file('sms.csv', 'recipient;name;Name;name \n77010000001;Ann;ANN;Bo\n');
    for (const extra of [[], ['--validate-only'], ['--dry-run']]) {
      const r = await runCli(['message', 'send', '--from-file', input, '--text', 'Hi {{name}}', ...extra], { env: bulk.env });
      expect(r.code).toBe(2);
      expect(r.stderr).toBe('error: --from-file: the header names the column "name" twice (columns 2 and 4): rename one, so that each value has a column of its own\n');
      expect(r.stdout).toBe('');
    }
    expect(bulk.server.requests).toHaveLength(0);
  });

  it("a spreadsheet's empty trailing columns are no columns named twice, and none to warn of as ignored", async () => {
    const input = file('sms.csv', 'recipient,name,,\n77010000001,Ann,,\n');
    const r = await runCli(['message', 'send', '--from-file', input, '--text', 'Hi {{name}}'], { env: bulk.env });
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain('ignoring columns');
    expect(bulk.server.requests).toHaveLength(1);
  });

  it('an unknown placeholder is an error before anything is sent', async () => {
    const input = file('sms.csv', 'recipient,name\n77010000001,Ann\n');
    const r = await runCli(['message', 'send', '--from-file', input, '--text', 'Hi {{name}} {{surname}}'], { env: bulk.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--text: unknown placeholder {{surname}}; the input\'s columns are recipient, name');
    expect(bulk.server.requests).toHaveLength(0);
  });

  it('an empty placeholder value makes that row invalid', async () => {
    const input = file('sms.csv', 'recipient,name\n77010000001,Ann\n77010000002,\n');
    const r = await runCli(['message', 'send', '--from-file', input, '--text', 'Hi {{name}}', '-o', 'ndjson'], { env: bulk.env });
    expect(r.code).toBe(5);
    expect(ndjson(r.stdout).find((x) => x.row === 3)).toMatchObject({ state: 'invalid', error: 'column name: is empty but --text uses {{name}}' });
  });

  it('checks every row with the single-send rules', async () => {
    const input = file('sms.ndjson', '{"recipient":"123","text":"x"}\n{"recipient":"77010000001","text":"x","validity":30}\n{"recipient":"77010000001","text":"x","at":"2020-01-01 00:00:00"}\nnot json\n');
    const r = await runCli(['message', 'send', '--from-file', input, '--validate-only', '-o', 'ndjson'], { env: bulk.env });
    expect(ndjson(r.stdout).map((x) => [x.row, x.column])).toEqual([
      [1, 'recipient'],
      [2, 'validity'],
      [3, 'at'],
      [4, '(row)'],
    ]);
  });

  it('a bad flag value that fills empty cells is the command\'s error: exit 2, no row sent', async () => {
    const sms = file('sms.csv', 'recipient,name,validity\n77011234567,A,120\n77011234568,B,\n');
    const r = await runCli(['message', 'send', '--from-file', sms, '--text', 'Hi {{name}}', '--validity', '30'], { env: bulk.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--validity: invalid value "30": must be between 60 and 1440');
    const links = file('links.csv', 'fullLink,expirationDate\nhttps://example.com/a,2030-01-01\nhttps://example.com/b,\n');
    for (const bad of [['--expires', '2026-02-30'], ['--status', 'bogus']]) {
      const l = await runCli(['link', 'create', '--from-file', links, ...bad], { env: bulk.env });
      expect(l.code).toBe(2);
      expect(l.stderr).toContain(`${bad[0]}: invalid value "${bad[1]}"`);
    }
    expect(bulk.server.requests).toHaveLength(0);
  });

  it('a CSV row with more fields than the header is that row\'s error, not a cut value', async () => {
    const input = file('sms.csv', 'recipient,text\n77011234567,Hello, world\n77011234568,"Hello, world"\n');
    const r = await runCli(['message', 'send', '--from-file', input, '--validate-only', '-o', 'csv'], { env: bulk.env });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('row,column,error\n2,(row),has 3 fields but the header has 2 (quote values that contain commas)\n');
  });

  it('--wait does not combine with --from-file', async () => {
    const input = file('sms.csv', 'recipient,text\n77011234567,hi\n');
    const r = await runCli(['message', 'send', '--from-file', input, '--wait'], { env: bulk.env });
    expect(r.code).toBe(2);
    expect(bulk.server.requests).toHaveLength(0);
  });
  it("names a row's state `state` in a table, CSV and JSON alike, and says a send's campaign status in words at a terminal", async () => {
    const input = file('sms.csv', 'recipient,text\n77010000001,Hi\nabc,Hi\n');
    const table = await runCli(['message', 'send', '--from-file', input, '--journal', `${input}.t`, '--yes'], { env: { ...bulk.env, NO_COLOR: '1' }, tty: true, columns: 120 });
    const [header, sent, invalid] = table.stdout.split('\n');
    expect(header).toMatch(/^row +state +message id +campaign +campaign status +error$/);
    expect(sent).toMatch(/^2 +done +\d+ +1 +sent without moderation +-$/);
    expect(invalid).toMatch(/^3 +invalid +- +- +- +column recipient: /);
    const csv = await runCli(['message', 'send', '--from-file', input, '--journal', `${input}.c`, '-o', 'csv'], { env: bulk.env });
    expect(csv.stdout.split('\n')[0]).toBe('row,state,messageId,campaignId,status,error');
    // Rows come out as they finish (docs/bulk.md): an invalid row may come first.
    expect(csv.stdout.split('\n').find((l) => l.startsWith('2,'))).toMatch(/^2,done,\d+,1,2,$/);
    const json = await runCli(['message', 'send', '--from-file', input, '--journal', `${input}.j`, '--json'], { env: bulk.env });
    expect(JSON.parse(json.stdout)).toEqual(
      expect.arrayContaining([expect.objectContaining({ row: 2, state: 'done', status: 2 }), expect.objectContaining({ row: 3, state: 'invalid' })]),
    );
  });

  it('reads the recipient from a to column, as --to and message list name it: message list\'s csv sends again as it is', async () => {
    const key = 'ResendKey0123456789abcdefABCDEF0123456789';
    const emu = await startEmulator({ port: 0, db: ':memory:', apiKeys: [key] });
    try {
      const cli = (args: string[]) => runCli(args, { env: { SMSLINK_BASE_URL: emu.url, SMSLINK_API_KEY: key } });
      for (const [to, text] of [['77010000001', 'Your code is 4711'], ['77010000002', 'Meeting moved to 15:00, room "B"']]) {
        expect((await cli(['message', 'send', '--to', to, '--text', text, '-q'])).code).toBe(0);
      }
      const sent = join(tempDir(), 'sent.csv');
      writeFileSync(sent, (await cli(['message', 'list', '--all', '-o', 'csv'])).stdout);
      const again = await cli(['message', 'send', '--from-file', sent, '-o', 'ndjson']);
      expect(again.code).toBe(0);
      expect(ndjson(again.stdout).map((r) => r.state)).toEqual(['done', 'done']);
      // The columns that are no message's (id, status...) are said to be ignored, once.
      expect(again.stderr).toMatch(/^warning: ignoring columns id, campaignId, status, segNum, startSendTs, statusUpdateTs /m);
      const texts = (await emu.messages()).map((m) => [m.to, m.text]).sort();
      expect(texts).toEqual([
        ['77010000001', 'Your code is 4711'],
        ['77010000001', 'Your code is 4711'],
        ['77010000002', 'Meeting moved to 15:00, room "B"'],
        ['77010000002', 'Meeting moved to 15:00, room "B"'],
      ]);
      // A file with both names for the recipient is refused before anything is sent.
      const both = join(tempDir(), 'both.csv');
      writeFileSync(both, 'recipient,to,text\n77010000003,77010000004,hi\n');
      const refused = await cli(['message', 'send', '--from-file', both]);
      expect([refused.code, refused.stderr.trim()]).toEqual([2, 'error: --from-file: the input has both a recipient and a to column, which mean the same: keep one']);
      expect(await emu.messages()).toHaveLength(4);
    } finally {
      await emu.close();
    }
  });
});
