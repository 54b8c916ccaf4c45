// A CSV file's columns are apart by commas, semicolons (a European
// spreadsheet's export) or tabs: the header row says which, and --delimiter
// chooses when it cannot. Against a recording server with a fake service.
import { describe, expect, it } from 'vitest';
import { delimiterOf, readAllRows } from '../../src/bulk/input.js';
import { runCli } from '../helpers/run-cli.js';
import { useBulkService } from '../helpers/bulk-files.js';

const bulk = useBulkService();

/** The forms the service was sent, each as its fields. */
const sent = () => bulk.server.requests.map((q) => Object.fromEntries(new URLSearchParams(q.body)));

describe('CSV delimiters', () => {
  it.each([
    ['semicolons (a European Excel export)', 'recipient;name;code\n77010000001;Ann;4711\n77010000002;"Smith; Bob";12,50\n', 'rows.csv'],
    ['tabs', 'recipient\tname\tcode\n77010000001\tAnn\t4711\n77010000002\tSmith; Bob\t12,50\n', 'rows.tsv'],
    ['commas, with a BOM and CRLF', '\uFEFFrecipient,name,code\r\n77010000001,Ann,4711\r\n77010000002,Smith; Bob,"12,50"\r\n', 'rows.csv'],
  ])('%s: found in the header row, each row sent with its own values', async (_name, text, name) => {
    const file = bulk.file(name, text);
    const r = await runCli(['message', 'send', '--from-file', file, '--text', 'Hi {{name}}, code {{code}}', '-o', 'csv'], { env: bulk.env });
    expect(r.stderr).toContain('2 done of 2 rows');
    expect(r.code).toBe(0);
    expect(sent().map((f) => [f.recipient, f.text]).sort()).toEqual([
      ['77010000001', 'Hi Ann, code 4711'],
      ['77010000002', 'Hi Smith; Bob, code 12,50'],
    ]);
  });

  it('the header decides, not the texts: a comma file whose texts hold many semicolons stays a comma file', async () => {
    const rows = Array.from({ length: 20 }, (_, i) => `770100000${String(i).padStart(2, '0')},"Sale; 20% off; today; only; here"`);
    const file = bulk.file('rows.csv', `recipient,text\n${rows.join('\n')}\n`);
    expect(delimiterOf(file)).toBe(',');
    const r = await runCli(['message', 'send', '--from-file', file, '--validate-only'], { env: bulk.env });
    expect(r.stderr).toContain('20 rows checked: 20 valid, 0 invalid');
    expect(r.code).toBe(0);
  });

  it('a header in quotes, with a semicolon inside a quoted name, still counts the delimiters outside the quotes', async () => {
    const file = bulk.file('rows.csv', '"recipient";"name; nickname";"code"\n77010000001;Ann;1\n');
    expect(delimiterOf(file)).toBe(';');
    const file2 = bulk.file('rows2.csv', 'recipient,"name; nickname; alias",code\n77010000001,Ann,1\n');
    expect(delimiterOf(file2)).toBe(',');
    expect(await readAllRows({ path: file2, format: 'csv', delimiter: ',' })).toEqual([{ row: 2, fields: { recipient: '77010000001', 'name; nickname; alias': 'Ann', code: '1' } }]);
  });

  it('--delimiter chooses another character; without it, a header of one column holding punctuation says to give it', async () => {
    const file = bulk.file('rows.csv', 'recipient|name\n77010000001|Ann\n');
    const noText = await runCli(['message', 'send', '--from-file', file], { env: bulk.env });
    expect(noText.code).toBe(2);
    expect(noText.stderr).toBe(
      'error: --from-file: the input has no recipient (or to), text column (columns: recipient|name); if another character separates its columns, name it with --delimiter\n',
    );
    const chosen = await runCli(['message', 'send', '--from-file', file, '--text', 'Hi {{name}}', '--delimiter', '|', '-o', 'csv'], { env: bulk.env });
    expect(chosen.code).toBe(0);
    expect(sent()).toEqual([expect.objectContaining({ recipient: '77010000001', text: 'Hi Ann' })]);
  });

  it('--delimiter tab, semicolon or comma by name; it overrides what the header suggests', async () => {
    // The header has more semicolons than tabs, though tabs separate its columns: the flag says so.
    const file = bulk.file('rows.csv', 'recipient\tnote;a;b\n77010000001\tx;y;z\n');
    expect(delimiterOf(file)).toBe(';');
    const guessed = await runCli(['message', 'send', '--from-file', file, '--text', 'Hi'], { env: bulk.env });
    expect(guessed.code).toBe(2);
    expect(guessed.stderr).toContain('the input has no recipient (or to) column (columns: recipient\tnote, a, b)');
    const r = await runCli(['message', 'send', '--from-file', file, '--text', 'Hi', '--delimiter', 'tab', '-o', 'csv'], { env: bulk.env });
    expect(r.code).toBe(0);
    expect(sent()).toEqual([expect.objectContaining({ recipient: '77010000001', text: 'Hi' })]);
    expect(r.stderr).toContain('warning: ignoring columns note;a;b');
    const named = await runCli(['message', 'send', '--from-file', bulk.file('s.csv', 'recipient,text\n77010000002,Hi\n'), '--delimiter', 'Semicolon'], { env: bulk.env });
    expect(named.code).toBe(2);
    expect(named.stderr).toContain('the input has no recipient (or to), text column (columns: recipient,text)');
  });

  it('a row with another number of fields names the delimiter the file is read with', async () => {
    const file = bulk.file('rows.csv', 'recipient;text\n77010000001;Hi; there\n');
    const r = await runCli(['message', 'send', '--from-file', file, '--validate-only', '-o', 'csv'], { env: bulk.env });
    expect(r.code).toBe(2);
    expect(r.stdout).toContain('has 3 fields but the header has 2 (quote values that contain semicolons)');
  });

  it('a bad --delimiter, one with NDJSON, or one without --from-file is a usage error before anything is read or sent', async () => {
    const csv = bulk.file('rows.csv', 'recipient,text\n77010000001,Hi\n');
    const bad = await runCli(['message', 'send', '--from-file', csv, '--delimiter', 'tabb'], { env: bulk.env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('error: --delimiter: invalid value "tabb" (did you mean tab?): must be one character, such as , or ; or |, or tab\n');
    const quote = await runCli(['link', 'create', '--from-file', csv, '--delimiter', '"'], { env: bulk.env });
    expect(quote.code).toBe(2);
    expect(quote.stderr).toContain('--delimiter: invalid value """: must be one character');
    const nd = bulk.file('rows.ndjson', '{"recipient":"77010000001","text":"Hi"}\n');
    const ndjson = await runCli(['message', 'send', '--from-file', nd, '--delimiter', ';'], { env: bulk.env });
    expect(ndjson.code).toBe(2);
    expect(ndjson.stderr).toBe('error: --delimiter applies to CSV input only (NDJSON has none)\n');
    const alone = await runCli(['message', 'send', '--to', '77010000001', '--text', 'x', '--delimiter', ';'], { env: bulk.env });
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain('--delimiter only applies with --from-file');
    expect(bulk.server.requests).toHaveLength(0);
  });

  it('link create reads a semicolon file as well', async () => {
    const file = bulk.file('links.csv', 'fullLink;comment\nhttps://example.com/a?x=1,2;first\n');
    const r = await runCli(['link', 'create', '--from-file', file, '-o', 'csv'], { env: bulk.env });
    expect(r.code).toBe(0);
    expect(sent()).toEqual([expect.objectContaining({ 'data[fullLink]': 'https://example.com/a?x=1,2', 'data[comment]': 'first' })]);
  });
});
