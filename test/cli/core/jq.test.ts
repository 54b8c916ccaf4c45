// --jq EXPR against the emulator: JSON output through jq, strings without
// quotes; a bad expression is exit 2 before anything is sent.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JqStream } from '../../../src/cli/core/jq.js';
import { seedLinks, startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { runCli, tempDir, type RunOptions } from '../../helpers/run-cli.js';

let emu: TestEmulator;
let ids: number[];

beforeAll(async () => {
  emu = await startTestEmulator();
  ids = [];
  for (const [fullLink, comment] of [['https://example.com/a', 'first one'], ['https://example.com/b', 'second']]) {
    const r = await emu.call('Link/Create', { data: { fullLink, comment } });
    ids.push(Number((r.data as { id: string }).id));
  }
  await emu.call('Message/SendSmsMessage', { recipient: '77011234567', text: 'Hello "there"' });
});
afterAll(() => emu.close());

const cli = (args: string[], opts: RunOptions = {}) => runCli(args, { ...opts, env: { SMSLINK_BASE_URL: emu.url, SMSLINK_API_KEY: emu.key, ...opts.env } });

describe('--jq', () => {
  it('link get: a string prints without quotes, an object as compact JSON in a pipe and indented at a terminal', async () => {
    const text = await cli(['link', 'get', String(ids[0]), '--jq', '.comment']);
    expect(text).toMatchObject({ code: 0, stdout: 'first one\n', stderr: '' });
    expect((await cli(['link', 'get', String(ids[0]), '--jq', '{id, comment}'])).stdout).toBe(`{"id":${ids[0]},"comment":"first one"}\n`);
    // Implies json even at a terminal, where the output would be a table.
    const tty = await cli(['link', 'get', String(ids[0]), '--jq', '{id}'], { tty: true });
    expect(tty.stdout).toBe(`{\n  "id": ${ids[0]}\n}\n`);
  });

  it('link list: the list is one document; with -o ndjson each link is one input', async () => {
    expect((await cli(['link', 'list', '--jq', '.[].fullLink'])).stdout).toBe('https://example.com/b\nhttps://example.com/a\n');
    expect((await cli(['link', 'list', '--jq', 'length'])).stdout).toBe('2\n');
    expect((await cli(['link', 'list', '-o', 'ndjson', '--jq', 'select(.comment == "second") | .id'])).stdout).toBe(`${ids[1]}\n`);
    // --fields picks first, then jq.
    expect((await cli(['link', 'list', '--fields', 'id', '--jq', '.[0] | keys'])).stdout).toBe('["id"]\n');
  });

  it('message list', async () => {
    const r = await cli(['message', 'list', '--jq', '.[] | "\\(.to): \\(.text)"']);
    expect(r).toMatchObject({ code: 0, stdout: '77011234567: Hello "there"\n' });
  });

  it("a bulk run's json results", async () => {
    const file = join(tempDir(), 'links.csv');
    writeFileSync(file, 'fullLink\nhttps://example.com/bulk1\nhttps://example.com/bulk2\n');
    const r = await cli(['link', 'create', '--from-file', file, '--jq', '[.[] | .state] | unique | .[]']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('done\n');
    expect(r.stderr).toContain('2 done of 2 rows');
  });

  it('an expression jq cannot compile is exit 2 with jq\'s error text, and nothing is sent', async () => {
    const r = await cli(['link', 'create', 'https://example.com/never', '--jq', '.id | foo(']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('error: --jq: invalid expression: syntax error, unexpected end of file');
    expect(r.stderr).toContain('jq: 1 compile error');
    expect(r.stdout).toBe('');
    const unknown = await cli(['link', 'list', '--jq', 'nosuchfn']);
    expect(unknown).toMatchObject({ code: 2, stdout: '' });
    expect(unknown.stderr).toContain('nosuchfn/0 is not defined');
    expect((await cli(['link', 'list', '--jq', '.[].fullLink'])).stdout).not.toContain('never');
  });

  it('a runtime error names the failure and says the command ran (exit 2)', async () => {
    const r = await cli(['link', 'list', '--jq', '.[0].id[0]']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--jq:');
    expect(r.stderr).toContain('Cannot index number with number (0) (the command itself was carried out)');
  });

  it('filters JSON lines as each is written (so --follow streams), a document of several lines at the end', async () => {
    const out = { text: '', write: (s: string) => ((out.text += s), true) };
    const lines = new JqStream(out, '.a');
    lines.write('{"a":1}\n{"a":');
    for (let i = 0; i < 500 && out.text === ''; i++) await new Promise((r) => setTimeout(r, 10));
    expect(out.text).toBe('1\n');
    lines.write('2}\n');
    await lines.end();
    expect(out.text).toBe('1\n2\n');

    const doc = { text: '', write: (s: string) => ((doc.text += s), true) };
    const whole = new JqStream(doc, '.[1]');
    whole.write('[\n  1,\n');
    await new Promise((r) => setTimeout(r, 50));
    expect(doc.text).toBe('');
    whole.write('  2\n]\n');
    await whole.end();
    expect(doc.text).toBe('2\n');
  });

  it('applies to json and ndjson output only, and not with -q (exit 2)', async () => {
    const csv = await cli(['link', 'list', '-o', 'csv', '--jq', '.']);
    expect(csv).toMatchObject({ code: 2, stdout: '' });
    expect(csv.stderr).toContain('--jq filters JSON output; give -o json or -o ndjson, not -o csv');
    const quiet = await cli(['link', 'list', '-q', '--jq', '.']);
    expect(quiet.code).toBe(2);
    expect(quiet.stderr).toContain('--jq filters JSON output; it cannot be combined with -q');
    const script = await cli(['completion', 'bash', '--jq', '.']);
    expect(script).toMatchObject({ code: 2, stdout: '' });
    expect(script.stderr).toContain('--jq filters JSON output, and this command prints none');
  });

  // A whole account through jq: as fast as jq itself, not a cost that grows with the square of the output.
  it('a list of 5,000 links goes through jq whole, as one document or line by line', async () => {
    const many = await startTestEmulator({ seed: { links: seedLinks(5_000, 'many') } });
    try {
      const env = { SMSLINK_BASE_URL: many.url, SMSLINK_API_KEY: many.key };
      const whole = await runCli(['link', 'list', '--all', '--page-size', '100', '--jq', '[.[].code] | unique | length'], { env });
      expect(whole).toMatchObject({ code: 0, stdout: '5000\n', stderr: '' });
      const lines = await runCli(['link', 'list', '--all', '--page-size', '100', '-o', 'ndjson', '--jq', '.code'], { env });
      expect(lines.code).toBe(0);
      expect(new Set(lines.stdout.trim().split('\n')).size).toBe(5_000);
    } finally {
      await many.close();
    }
  });
});
