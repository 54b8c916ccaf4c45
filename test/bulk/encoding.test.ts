// The text encoding of a bulk input: UTF-8 (with or without a BOM) and
// UTF-16 with a BOM are read as they are; a file that is not UTF-8 is
// refused, naming its row, unless --encoding names its encoding.
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { useBulkService } from '../helpers/bulk-files.js';

const bulk = useBulkService();
const send = (file: string, ...flags: string[]) => runCli(['message', 'send', '--from-file', file, '-o', 'json', ...flags], { env: bulk.env });
/** The texts that reached the service. */
const texts = () => bulk.server.requests.map((q) => new URLSearchParams(q.body).get('text'));
const HINT = 'if it was saved in another encoding, name it, e.g. --encoding windows-1251 (Cyrillic) or --encoding latin1 (Western European)';

const csv = (text: string, encode: (s: string) => Buffer) => encode(`recipient,text\n77011234567,plain\n77011234568,${text}\n`);
const latin1 = (s: string) => Buffer.from(s, 'latin1');
/** windows-1251 by hand: Node's Buffer has no encoder for it. */
const cp1251 = (s: string) => Buffer.from([...s].map((c) => (c >= 'А' && c <= 'я' ? c.charCodeAt(0) - 0x410 + 0xc0 : c.charCodeAt(0))));

describe('--encoding', () => {
  it.each([[[] as string[]], [['--validate-only']], [['--dry-run']]])('a latin1 file without it is refused with its row and a hint, nothing sent (%j)', async (flags) => {
    const r = await runCli(['message', 'send', '--from-file', writeBytes('latin1.csv', csv('Hello Zoë', latin1)), ...flags], { env: bulk.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`--from-file: row 3 ("Hello Zo\uFFFD") is not valid UTF-8, so the file is not sent; ${HINT}`);
    expect(bulk.server.requests).toHaveLength(0);
  });

  it('an NDJSON file is held to UTF-8 too', async () => {
    const r = await send(writeBytes('rows.ndjson', latin1('{"recipient":"77011234567","text":"ok"}\n{"recipient":"77011234568","text":"Zoë"}\n')));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--from-file: row 2 ("Zo\uFFFD") is not valid UTF-8');
    expect(bulk.server.requests).toHaveLength(0);
  });

  it.each([
    ['latin1', 'Hello Zoë', latin1],
    ['iso-8859-1', 'Grüße Ça va', latin1],
    ['windows-1251', 'Привет мир', cp1251],
    ['utf-16le', 'Привет Zoë', (s: string) => Buffer.from(s, 'utf16le')],
  ])('--encoding %s: the text arrives as written', async (encoding, text, encode) => {
    const r = await send(writeBytes('rows.csv', csv(text, encode)), '--encoding', encoding);
    expect(r.code).toBe(0);
    expect(texts()).toEqual(['plain', text]);
  });

  it.each([
    ['UTF-8 with a BOM', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), csv('Привет Zoë', (s) => Buffer.from(s))])],
    ['UTF-16LE with a BOM', Buffer.concat([Buffer.from([0xff, 0xfe]), csv('Привет Zoë', (s) => Buffer.from(s, 'utf16le'))])],
    ['UTF-16BE with a BOM', Buffer.concat([Buffer.from([0xfe, 0xff]), csv('Привет Zoë', (s) => Buffer.from(s, 'utf16le').swap16())])],
  ])('%s is read without --encoding', async (_what, bytes) => {
    const r = await send(writeBytes('rows.csv', bytes));
    expect(r.code).toBe(0);
    expect(texts()).toEqual(['plain', 'Привет Zoë']);
  });

  it('the journal goes beside the file named, not beside the decoded copy, and a rerun skips what was done', async () => {
    const file = writeBytes('rows.csv', csv('Hello Zoë', latin1));
    const first = await send(file, '--encoding', 'latin1');
    expect(first.stderr).toContain(`(journal: ${file}.journal)`);
    const again = await send(file, '--encoding', 'latin1');
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('2 already done');
    expect(bulk.server.requests).toHaveLength(2);
  });

  it('an encoding Node.js cannot read, or the flag without --from-file, is a usage error', async () => {
    const r = await send(bulk.file('rows.csv', 'recipient,text\n'), '--encoding', 'klingon');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--encoding: "klingon" is not an encoding this Node.js can read; e.g. utf-8, windows-1251, latin1, utf-16le');
    const alone = await runCli(['message', 'send', '--to', '77011234567', '--text', 'x', '--encoding', 'latin1'], { env: bulk.env });
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain('--encoding only applies with --from-file');
  });
});

function writeBytes(name: string, bytes: Buffer): string {
  const path = bulk.file(name, '');
  writeFileSync(path, bytes);
  return path;
}
