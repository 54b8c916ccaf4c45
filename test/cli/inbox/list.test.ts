// `smslink inbox list`: the messages the emulator received, newest first,
// picked by number, text and time, in every output format.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, TEST_START, type TestEmulator } from '../../helpers/emulator.js';
import { runCli, tempDir } from '../../helpers/run-cli.js';

let emu: TestEmulator;
let env: Record<string, string>;
beforeAll(async () => {
  emu = await startTestEmulator();
  env = { SMSLINK_BASE_URL: emu.url };
  await emu.call('Message/SendSmsMessage', { recipient: '77011234567', text: 'Your code is 4711' });
  emu.clock.advance(3_600_000);
  await emu.call('Message/SendSmsMessage', { recipient: '77011234567', text: 'Your code is 9999, "quoted"' });
  await emu.call('Message/SendSmsMessage', { recipient: '998901234567', text: 'Salom' });
});
afterAll(() => emu.close());

describe('smslink inbox list', () => {
  it('json: every message, newest first, with its timeline; ndjson one per line', async () => {
    const r = await runCli(['inbox', 'list', '-o', 'json'], { env });
    expect(r.code).toBe(0);
    const listed = JSON.parse(r.stdout) as Array<Record<string, unknown>>;
    expect(listed.map((m) => m.text)).toEqual(['Salom', 'Your code is 9999, "quoted"', 'Your code is 4711']);
    expect(listed[2]).toMatchObject({ id: 1, to: '77011234567', status: 'DELIVRD', createdAt: '2025-01-15 10:00:00', timeline: expect.arrayContaining([{ status: 'DELIVRD', at: '2025-01-15 10:00:05' }]) });
    const nd = await runCli(['inbox', 'list', '-o', 'ndjson', '--fields', 'id,status'], { env });
    expect(nd.stdout).toBe('{"id":3,"status":"NEW"}\n{"id":2,"status":"NEW"}\n{"id":1,"status":"DELIVRD"}\n');
  });

  it('a table says statuses in words; csv and tsv keep the codes; -q prints the ids', async () => {
    const table = await runCli(['inbox', 'list', '-o', 'table', '--no-color'], { env });
    expect(table.stdout.split('\n')[0]).toMatch(/^id +created +to +from +status +text$/);
    expect(table.stdout).toMatch(/^1 +2025-01-15 10:00 +77011234567 +SMSLINK +delivered +Your code is 4711$/m);
    const csv = await runCli(['inbox', 'list', '-o', 'csv', '--to', '77011234567'], { env });
    expect(csv.stdout).toBe(
      'id,createdAt,to,from,status,text\n2,2025-01-15 11:00:00,77011234567,SMSLINK,NEW,"Your code is 9999, ""quoted"""\n1,2025-01-15 10:00:00,77011234567,SMSLINK,DELIVRD,Your code is 4711\n',
    );
    const tsv = await runCli(['inbox', 'list', '-o', 'tsv', '--text', 'Salom'], { env });
    expect(tsv.stdout).toBe('id\tcreatedAt\tto\tfrom\tstatus\ttext\n3\t2025-01-15 11:00:00\t998901234567\tSMSLINK\tNEW\tSalom\n');
    expect((await runCli(['inbox', 'list', '-q'], { env })).stdout).toBe('3\n2\n1\n');
  });

  it('--since takes a time on the machine\'s clock; --limit keeps the newest and says how many there were', async () => {
    const now = () => new Date(TEST_START + 3_600_000 + 60_000);
    const recent = await runCli(['inbox', 'list', '--since', '30m', '-q'], { env, now });
    expect(recent.stdout).toBe('3\n2\n');
    // As link list --limit says it: to a person, how many there are and how to see them all; to -q, nothing.
    const limited = await runCli(['inbox', 'list', '--limit', '2', '--no-color'], { env, tty: true });
    expect(limited.stdout).toMatch(/^3 .*\n2 /m);
    expect(limited.stdout).not.toMatch(/^1 /m);
    expect(limited.stderr).toBe('Showing 1-2 of 3 messages. All of them: `--limit 3`.\n');
    expect((await runCli(['inbox', 'list', '--limit', '2', '-o', 'table', '--no-color'], { env })).stderr).toBe('Showing 1-2 of 3 messages. All of them: `--limit 3`.\n');
    expect((await runCli(['inbox', 'list', '--limit', '3', '--no-color'], { env, tty: true })).stderr).toBe('');
    expect(await runCli(['inbox', 'list', '--limit', '1', '-q'], { env })).toMatchObject({ stdout: '3\n', stderr: '' });
    expect((await runCli(['inbox', 'list', '--limit', '0'], { env })).stderr).toBe('error: --limit: invalid value "0": must be a whole number from 1 to 1000\n');
  });

  it('has no --all (the control API answers at most 1000 and has no pages): the default 100 says to a script how to see all, past 1000 how to narrow', async () => {
    const many = await startTestEmulator({ seed: { messages: Array.from({ length: 1001 }, (_, i) => ({ to: `7701${String(i).padStart(7, '0')}`, text: `m${i}` })) } });
    try {
      const manyEnv = { SMSLINK_BASE_URL: many.url };
      const script = await runCli(['inbox', 'list', '-q'], { env: manyEnv });
      expect(script.stdout.trim().split('\n')).toHaveLength(100);
      expect(script.stderr).toBe('100 of 1001 messages shown; add --limit 1000 for the newest 1000\n');
      const person = await runCli(['inbox', 'list', '--no-color', '--no-pager'], { env: manyEnv, tty: true });
      expect(person.stderr).toContain('Showing 1-100 of 1001 messages. The newest 1000: `--limit 1000`; older ones: narrow with --to or --text.');
      const most = await runCli(['inbox', 'list', '--limit', '1000', '-o', 'table', '--no-color'], { env: manyEnv });
      expect(most.stderr).toBe('Showing 1-1000 of 1001 messages. 1000 is the most at once; older ones: narrow with --to or --text.\n');
      expect((await runCli(['inbox', 'list', '--to', '7701000010', '--limit', '5', '-o', 'table', '--no-color'], { env: manyEnv })).stderr).toBe(
        'Showing 1-5 of 10 messages. All of them: `--limit 10`.\n',
      );
      const all = await runCli(['inbox', 'list', '--all'], { env: manyEnv });
      expect(all.code).toBe(2);
      expect(all.stderr).toContain('--all');
    } finally {
      await many.close();
    }
  });

  it('--sandbox lists the sandbox; without a base URL it says where the inbox is (exit 4)', async () => {
    const dataEnv = { SMSLINK_DATA_DIR: tempDir() };
    await runCli(['--sandbox', 'message', 'send', '--to', '+77011234567', '--text', 'hello', '-q'], { env: dataEnv });
    expect((await runCli(['--sandbox', 'inbox', 'list', '--jq', '.[].text'], { env: dataEnv })).stdout).toBe('hello\n');
    const none = await runCli(['inbox', 'list']);
    expect(none.code).toBe(4);
    expect(none.stderr).toBe("error: the inbox is the emulator's: give --base-url the address `smslink serve` printed (or set SMSLINK_BASE_URL), or use --sandbox\n");
  });

  it('--dry-run says what it would ask and asks nothing', async () => {
    const r = await runCli(['inbox', 'list', '--base-url', 'http://127.0.0.1:1', '--to', '+7701', '--dry-run', '-o', 'json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ dryRun: true, method: 'GET', url: 'http://127.0.0.1:1/_emulator/messages?to=7701&limit=100' });
  });
});
