// `smslink inbox set-status`: one message's fate chosen by a test. The
// status it gives is the one Message/GetSMSStatus (message status), a
// running `message list --follow` and the control API all see.
import { afterEach, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { runCli, startCli, tempDir } from '../../helpers/run-cli.js';

let emu: TestEmulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

async function until(done: () => boolean, what: string, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('smslink inbox set-status', () => {
  it('undelivered on one message: message status, a running --follow and the control API see it', async () => {
    let listed = 0;
    emu = await startTestEmulator({
      apiKeys: ['app-key-0123456789'],
      hooks: {
        after: ({ path }) => {
          if (path.toLowerCase() === 'message/list') listed++;
          return false;
        },
      },
    });
    const env = { SMSLINK_BASE_URL: emu.url, SMSLINK_API_KEY: 'app-key-0123456789' };
    const ac = new AbortController();
    // --follow prints what is sent after it started: it has read the list once before the send.
    const follow = startCli(['message', 'list', '--follow', '--interval', '500ms', '-o', 'ndjson'], { env, signal: ac.signal });
    await until(() => listed > 0, 'the follow to read the list');
    const sent = await runCli(['message', 'send', '--to', '+77011234567', '--text', 'Your code is 4711', '-q'], { env });
    const id = sent.stdout.trim();
    expect(id).toBe('1');
    await until(() => follow.stdout.text.includes('"event":"new"'), 'the follow to print the message');

    const r = await runCli(['inbox', 'set-status', id, 'undelivered', '-o', 'json'], { env });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ id: 1, status: 'UNDELIV', statusUpdateTs: '2025-01-15 10:00:00', startSendTs: '2025-01-15 10:00:00' });
    expect(r.stderr).toBe('message 1: undelivered (UNDELIV) from 2025-01-15 10:00:00 (was new (NEW))\n');

    await until(() => follow.stdout.text.includes('"status":"UNDELIV"'), 'the follow to print the new status');
    ac.abort();
    const events = follow.stdout.text.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(events.at(-1)).toMatchObject({ event: 'status', id: 1, status: 'UNDELIV', previousStatus: 'NEW', statusUpdateTs: '2025-01-15 10:00:00' });
    expect((await follow.done).code).toBe(0);

    expect(await runCli(['message', 'status', id, '-q'], { env })).toMatchObject({ code: 0, stdout: 'UNDELIV\n' });
    // `message status --wait` ends with it: not delivered, exit 7.
    expect((await runCli(['message', 'status', id, '--wait', '--wait-timeout', '10s'], { env })).code).toBe(7);
    const timeline = await runCli(['inbox', 'list', '--jq', '.[0].timeline | map(.status) | join(" ")'], { env });
    expect(timeline.stdout).toBe('NEW ENQUEUD ACCEPTD UNDELIV\n');
  });

  it('takes the codes too, says when nothing changed, and works in the sandbox', async () => {
    const env = { SMSLINK_DATA_DIR: tempDir() };
    await runCli(['--sandbox', 'message', 'send', '--to', '+77011234567', '--text', 'hi', '-q'], { env });
    expect(await runCli(['--sandbox', 'inbox', 'set-status', '1', 'EXPIRED', '-q'], { env })).toMatchObject({ code: 0, stdout: 'EXPIRED\n' });
    const again = await runCli(['--sandbox', 'inbox', 'set-status', '1', 'expired'], { env });
    expect(again).toMatchObject({ code: 0, stderr: 'message 1 was expired already; nothing changed\n' });
    expect((await runCli(['--sandbox', 'message', 'status', '1', '-q'], { env })).stdout).toBe('EXPIRED\n');
  });

  it('refuses a status it cannot give (2, with the nearest word), an id that is none (2) and an unknown message (6)', async () => {
    emu = await startTestEmulator();
    const env = { SMSLINK_BASE_URL: emu.url };
    const typo = await runCli(['inbox', 'set-status', '1', 'delivred'], { env });
    expect(typo).toMatchObject({ code: 2 });
    expect(typo.stderr).toBe(
      'error: <status>: invalid value "delivred" (did you mean delivered?): must be one of delivered, undelivered, rejected, expired (or its code: DELIVRD, UNDELIV, REJECTD, EXPIRED)\n',
    );
    expect((await runCli(['inbox', 'set-status', '1', 'accepted'], { env })).code).toBe(2);
    expect((await runCli(['inbox', 'set-status', 'abc', 'rejected'], { env })).stderr).toBe('error: <id>: invalid value "abc": must be a message id (a whole number from 1)\n');
    const unknown = await runCli(['inbox', 'set-status', '42', 'rejected'], { env });
    expect(unknown).toMatchObject({ code: 6, stderr: 'error: no message found for 42 (unknown, or not yours)\n' });
  });
});
