// Destructive commands ask first at a real terminal (default no), and never
// when stdin is piped, with --yes or with --dry-run: scripts keep working.
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { KEYS, runInPty, screenText, type PtyOptions } from '../../helpers/pty.js';
import { runCli, tempDir } from '../../helpers/run-cli.js';

let emu: TestEmulator;
let ids: string[];
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());
beforeEach(async () => {
  ids = [];
  for (const n of [1, 2, 3]) {
    const made = await emu.call('Link/Create', { data: { fullLink: `https://example.com/${n}` } });
    ids.push(String((made.data as { id: string }).id));
  }
});

const env = () => ({ SMSLINK_BASE_URL: emu.url, SMSLINK_API_KEY: emu.key, NO_COLOR: '1' });
const exists = async (id: string) => (await emu.call('Link/Get', { id })).code === 0;
const QUESTION = () => `Delete 3 links (${ids.join(', ')})? [y/N] `;

async function deleteAt(answer: string | undefined, extra: string[] = [], opts: PtyOptions = {}) {
  const steps = answer === undefined ? [] : [{ waitFor: QUESTION(), write: answer }];
  const r = await runInPty(['link', 'delete', ...ids, ...extra], { env: env(), steps, ...opts });
  return { ...r, screen: screenText(r.output) };
}

describe('link delete at a terminal', () => {
  it('names a link that does not exist before the question, which asks about the others only', async () => {
    const steps = [{ waitFor: `Delete 1 link (${ids[0]})? [y/N] `, write: `y${KEYS.enter}` }];
    const r = await runInPty(['link', 'delete', ids[0], '99999'], { env: env(), steps });
    const screen = screenText(r.output);
    expect(r.code, screen).toBe(5);
    expect(screen).toContain(`no link found for 99999 (unknown, or not yours)\nDelete 1 link (${ids[0]})? [y/N] y\n`);
    expect(await exists(ids[0])).toBe(false);
  });

  it('y deletes after asking', async () => {
    const r = await deleteAt(`y${KEYS.enter}`);
    expect(r.code, r.screen).toBe(0);
    expect(r.screen).toContain(`${QUESTION()}y\n`);
    expect(r.screen).toContain(`Deleted 3 links: ${ids.join(', ')}`);
    expect(await exists(ids[0])).toBe(false);
  });

  it.each([
    ['n', `n${KEYS.enter}`],
    ['Enter (the default is no)', KEYS.enter],
    ['anything but y or yes', `sure${KEYS.enter}`],
  ])('%s deletes nothing and exits 2', async (_name, answer) => {
    const r = await deleteAt(answer);
    expect(r.code, r.screen).toBe(2);
    expect(r.screen).toMatch(/\? \[y\/N\] .*\nNothing deleted\.\n$/);
    for (const id of ids) expect(await exists(id)).toBe(true);
  });

  it('Ctrl-C at the question exits 130 and deletes nothing', async () => {
    const r = await deleteAt(KEYS.ctrlC);
    expect(r.code, r.screen).toBe(130);
    expect(r.screen).toMatch(/\[y\/N\] (\^C)?\nerror: interrupted at the prompt; nothing was changed\n$/);
    for (const id of ids) expect(await exists(id)).toBe(true);
  });

  it('--yes and -y skip the question', async () => {
    const r = await deleteAt(undefined, ['--yes']);
    expect(r.code, r.screen).toBe(0);
    expect(r.screen).not.toContain('[y/N]');
    expect(await exists(ids[2])).toBe(false);
  });

  it('--dry-run never asks and deletes nothing', async () => {
    const r = await deleteAt(undefined, ['--dry-run']);
    expect(r.code, r.screen).toBe(0);
    expect(r.screen).not.toContain('[y/N]');
    expect(r.screen).toContain('dry run: nothing was sent');
    expect(await exists(ids[0])).toBe(true);
  });

  it('with ids piped in, nothing is asked (a script in a terminal)', async () => {
    const r = await runInPty([], { env: env(), command: ['sh', '-c', `echo ${ids.join(' ')} | "$SMSLINK_NODE" "$SMSLINK_BIN" link delete -`] });
    const screen = screenText(r.output);
    expect(r.code, screen).toBe(0);
    expect(screen).not.toContain('[y/N]');
    expect(screen).toContain('Deleted 3 links');
  });

  it('a long list of ids is shortened in the question', async () => {
    const more: string[] = [];
    for (const n of [4, 5, 6]) more.push(String(((await emu.call('Link/Create', { data: { fullLink: `https://example.com/${n}` } })).data as { id: string }).id));
    const r = await runInPty(['link', 'delete', ...ids, ...more], { env: env(), steps: [{ waitFor: /\[y\/N\] /, write: KEYS.enter }] });
    expect(screenText(r.output)).toContain(`Delete 6 links (${[...ids, ...more.slice(0, 2)].join(', ')} and 1 more)? [y/N]`);
    expect(r.code).toBe(2);
  });
});

describe('without a terminal', () => {
  it('link delete acts at once, as before', async () => {
    const r = await runCli(['link', 'delete', ids[0]], { env: env() });
    expect(r.code).toBe(0);
    expect(await exists(ids[0])).toBe(false);
  });
});

describe('sandbox reset at a terminal', () => {
  async function sandbox() {
    const dataDir = tempDir();
    await runCli(['--sandbox', 'link', 'create', 'https://example.com/kept'], { env: { SMSLINK_DATA_DIR: dataDir } });
    const db = join(dataDir, 'sandbox.db');
    expect(existsSync(db)).toBe(true);
    const count = async () => JSON.parse((await runCli(['--sandbox', 'link', 'list', '-o', 'json'], { env: { SMSLINK_DATA_DIR: dataDir } })).stdout).length as number;
    return { env: { SMSLINK_DATA_DIR: dataDir, NO_COLOR: '1' }, db, count };
  }

  it('asks first; n keeps everything and exits 2, y empties it', async () => {
    const box = await sandbox();
    const no = await runInPty(['sandbox', 'reset'], { env: box.env, steps: [{ waitFor: `Delete everything in the sandbox (${box.db})? [y/N] `, write: `n${KEYS.enter}` }] });
    expect(no.code, screenText(no.output)).toBe(2);
    expect(screenText(no.output)).toContain('Nothing deleted.');
    expect(await box.count()).toBe(1);

    const yes = await runInPty(['sandbox', 'reset'], { env: box.env, steps: [{ waitFor: '[y/N] ', write: `yes${KEYS.enter}` }] });
    expect(yes.code, screenText(yes.output)).toBe(0);
    expect(screenText(yes.output)).toContain(`Sandbox emptied: ${box.db}`);
    expect(await box.count()).toBe(0);
  });

  it('--yes, --dry-run and piped stdin never ask; --dry-run changes nothing', async () => {
    const box = await sandbox();
    const dry = await runInPty(['--dry-run', 'sandbox', 'reset'], { env: box.env });
    expect(dry.code).toBe(0);
    expect(screenText(dry.output)).toContain('dry run: would delete everything in the sandbox');
    expect(await box.count()).toBe(1);

    const piped = await runInPty([], { env: box.env, command: ['sh', '-c', 'echo | "$SMSLINK_NODE" "$SMSLINK_BIN" sandbox reset'] });
    expect(piped.code).toBe(0);
    expect(screenText(piped.output)).not.toContain('[y/N]');
    expect(await box.count()).toBe(0);

    await runCli(['--sandbox', 'link', 'create', 'https://example.com/again'], { env: box.env });
    const yes = await runInPty(['sandbox', 'reset', '-y'], { env: box.env });
    expect(yes.code).toBe(0);
    expect(statSync(box.db).isFile()).toBe(true);
    expect(await box.count()).toBe(0);
  });
});
