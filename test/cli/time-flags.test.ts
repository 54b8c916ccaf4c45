// One rule for every time flag, found by walking the command tree: each
// takes every form of `smslink help time` (a day, a date-time, HH:MM, now,
// 7d back, +2h ahead) as the same moment on every flag, sent as that moment
// (a date flag: its day) or refused for a rule of its own (too soon, past,
// future), quoting the value as typed with the moment it stood for.
import { describe, expect, it } from 'vitest';
import type { Command, Option } from 'commander';
import { OPERATIONS } from '../../src/catalog/index.js';
import type { ParamSpec } from '../../src/catalog/types.js';
import { buildProgram } from '../../src/cli/program.js';
import { formatDateTime } from '../../src/catalog/rules.js';
import { runCli, tempDir } from '../helpers/run-cli.js';

// Local time: the CLI reads the machine's wall clock.
const NOW = new Date(2026, 10, 20, 6, 0, 0);

/** Each form, and the moment it names on NOW: a day is its start or end by the flag. */
const FORMS: Array<{ typed: string; start: string; end: string; moment: boolean }> = [
  { typed: '2026-11-18', start: '2026-11-18 00:00:00', end: '2026-11-18 23:59:59', moment: false },
  { typed: '2026-11-18 09:30', start: '2026-11-18 09:30:00', end: '2026-11-18 09:30:59', moment: true },
  { typed: '2026-11-18T09:30:15', start: '2026-11-18 09:30:15', end: '2026-11-18 09:30:15', moment: true },
  { typed: '09:30', start: '2026-11-20 09:30:00', end: '2026-11-20 09:30:59', moment: true },
  { typed: 'now', start: '2026-11-20 06:00:00', end: '2026-11-20 06:00:00', moment: true },
  { typed: '7d', start: '2026-11-13 06:00:00', end: '2026-11-13 06:00:00', moment: true },
  { typed: '-7d', start: '2026-11-13 06:00:00', end: '2026-11-13 06:00:00', moment: true },
  { typed: '2h', start: '2026-11-20 04:00:00', end: '2026-11-20 04:00:00', moment: true },
  { typed: '+2h', start: '2026-11-20 08:00:00', end: '2026-11-20 08:00:00', moment: true },
  { typed: '+3d', start: '2026-11-23 06:00:00', end: '2026-11-23 06:00:00', moment: true },
];

/** What a command needs besides the time flag to run at all. */
const ARGS: Record<string, string[]> = {
  'link create': ['https://example.com/x'],
  'link update': ['5'],
  'link stats': ['5'],
  'message send': ['--to', '77011234567', '--text', 'x'],
  'inbox wait': ['--to', '77011234567'],
};

/** Commands that read the local mirror: no --dry-run, so what they accept is seen by what they do not refuse. */
const NO_DRY_RUN = new Set(['sync', 'report delivery', 'report links']);

interface TimeFlag {
  path: string;
  option: Option;
  param?: ParamSpec;
}

function timeFlags(): TimeFlag[] {
  const io = { stdout: { write: () => true }, stderr: { write: () => true }, stdin: process.stdin, env: {} };
  const program = buildProgram(io, async () => {}, ['completion']);
  const out: TimeFlag[] = [];
  const walk = (cmd: Command, path: string[]) => {
    for (const sub of cmd.commands) walk(sub, [...path, sub.name()]);
    for (const option of cmd.options) {
      if (option.hidden || !/<(time|date)>/.test(option.flags)) continue;
      const op = OPERATIONS.find((o) => o.command?.join(' ') === path.join(' '));
      out.push({ path: path.join(' '), option, param: op?.params.find((p) => p.cli?.flag?.split(' ')[0] === option.long) });
    }
  };
  walk(program, []);
  return out;
}

const FLAGS = timeFlags();

/** What the flag sends for a form: the day of a date flag, else the moment, a day filled as the flag fills it. */
function expected(flag: TimeFlag, form: (typeof FORMS)[number]): string | undefined {
  const fill = flag.param ? flag.param.cli?.fillTime : flag.option.long === '--until' ? 'end' : 'start';
  if (flag.param?.type === 'date') return form.start.slice(0, 10);
  if (!form.moment && fill === undefined) return undefined;
  return fill === 'end' ? form.end : form.start;
}

const env = () => ({ SMSLINK_BASE_URL: 'http://127.0.0.1:1', SMSLINK_API_KEY: 'TimeFlagsKey0123456789', SMSLINK_DATA_DIR: tempDir(), SMSLINK_RETRIES: '0' });

describe('every time flag', () => {
  it('the walk finds them all, and each help points to `smslink help time`', () => {
    const names = FLAGS.map((f) => `${f.path} ${f.option.long}`);
    expect(names).toEqual(
      expect.arrayContaining([
        'link create --expires',
        'link list --created-from',
        'link list --created-to',
        'link update --expires',
        'link stats --since',
        'link stats --until',
        'message send --at',
        'message list --sent-from',
        'message list --sent-to',
        'report delivery --since',
        'report links --until',
        'sync --since',
        'inbox list --since',
        'inbox wait --since',
      ]),
    );
    for (const f of FLAGS) expect(f.option.description, `${f.path} ${f.option.long}`).toContain('`smslink help time`');
  });

  const runs = FLAGS.flatMap((flag) => FORMS.map((form) => [`${flag.path} ${flag.option.long} ${form.typed}`, flag, form] as const));

  it.each(runs)('%s', async (_name, flag, form) => {
    const dry = !NO_DRY_RUN.has(flag.path);
    const args = [...(dry ? ['--dry-run'] : []), ...flag.path.split(' '), ...(ARGS[flag.path] ?? []), flag.option.long!, form.typed, '-o', 'json'];
    const r = await runCli(args, { env: env(), now: () => NOW });
    const want = expected(flag, form);
    const refusal = `${flag.option.long}: invalid value "${form.typed}"`;
    if (want === undefined) {
      // A day alone names no moment for a flag that needs one (--at): refused with the forms.
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`${refusal}: must be a time: "YYYY-MM-DD HH:MM[:SS]", HH:MM (today), now, 7d (ago) or +2h (ahead)`);
      return;
    }
    // Every form is read: never refused as something that is no time.
    expect(r.stderr).not.toContain('must be a time');
    if (r.code === 2 && r.stderr.includes(refusal)) {
      // Refused for a rule of the flag's own, the value quoted as typed with the moment it stood for.
      expect(r.stderr).toContain(want);
      // Back where only ahead will do: the same time with a + is offered.
      if (/^\d+[mhdw]$/.test(form.typed) && want < '2026-11-20 06:00:00') expect(r.stderr).toContain(`(did you mean +${form.typed}?`);
      return;
    }
    if (!dry) {
      // Read, then the mirror's own business (nothing to sync from here): no complaint about the flag.
      expect(r.stderr).not.toContain(flag.option.long);
      return;
    }
    expect(r.code, r.stderr).toBe(0);
    const shown = JSON.parse(r.stdout) as { fields?: Record<string, string>; url: string };
    // The emulator's inbox takes an instant (?since=ISO), the service a wall time in a field.
    const sent = shown.fields ? shown.fields[flag.param!.wire] : formatDateTime(new Date(new URL(shown.url).searchParams.get('since')!));
    expect(sent).toBe(want);
  });

  // `link list --created-from yesterday` once said "a real date written YYYY-MM-DD, or a time such as +30d or 7d", `message list --sent-from yesterday` the forms.
  it.each(FLAGS.map((flag) => [`${flag.path} ${flag.option.long}`, flag] as const))('%s refuses what is no time, and a date that does not exist, in the same words', async (_name, flag) => {
    const refused = async (typed: string) => {
      const dry = !NO_DRY_RUN.has(flag.path);
      const args = [...(dry ? ['--dry-run'] : []), ...flag.path.split(' '), ...(ARGS[flag.path] ?? []), flag.option.long!, typed];
      const r = await runCli(args, { env: env(), now: () => NOW });
      expect(r.code, r.stderr).toBe(2);
      return r.stderr;
    };
    const forms = 'HH:MM (today), now, 7d (ago) or +2h (ahead); times: `smslink help time`';
    expect(await refused('yesterday')).toMatch(new RegExp(`^error: ${flag.option.long}: invalid value "yesterday": must be a time: (YYYY-MM-DD, )?"YYYY-MM-DD HH:MM\\[:SS\\]", ${forms.replace(/[()+[\]]/g, '\\$&')}$`, 'm'));
    expect(await refused('2026-02-30 09:00')).toContain(`${flag.option.long}: invalid value "2026-02-30 09:00": must be a real date and time: `);
  });
});
