// `smslink config set <name> [value]`: saves a setting in the current
// profile; a key is asked for (nothing echoed) or read from stdin.

import { withoutServicePath } from '../../client/base-url.js';
import { servicePathNote, SETTINGS } from '../../config/resolve.js';
import { updateProfile, type SettingKey } from '../../config/file.js';
import type { CommandDef } from '../core/command.js';
import type { RunContext } from '../core/context.js';
import { KEY_PROMPT, promptLine, promptSecret } from '../core/prompt.js';
import { readStdin } from '../core/streams.js';
import { registerSecret } from '../../secrets.js';
import { EXIT, UsageError } from '../../exit-codes.js';
import { invalidValue } from '../../output/words.js';
import { keyOf, settingArgument, show } from './setting.js';

/** A value given as - (or an API key given as nothing): asked for on a terminal, else read from stdin. */
async function valueFromInput(ctx: RunContext, key: SettingKey, name: string): Promise<string> {
  if (!ctx.io.stdin.isTTY) return (await readStdin(ctx.io)).trim();
  return SETTINGS[key].secret ? promptSecret(ctx, KEY_PROMPT) : promptLine(ctx, `${name}: `);
}

async function set(ctx: RunContext, name: string, value: string | undefined): Promise<number> {
  const key = keyOf(name);
  const onArgv = value !== undefined && value !== '-';
  let v = value;
  if (!onArgv) {
    if (v === undefined && !SETTINGS[key].secret) throw new UsageError(`config set ${name}: give a value (or - to read it from stdin)`);
    v = await valueFromInput(ctx, key, name);
  }
  if (!v) throw new UsageError(`config set ${name}: the value is empty; nothing was saved`);
  if (SETTINGS[key].secret) registerSecret(v);
  // A key is one word (letters and digits): a second line of stdin, or a space, is no part of it. Not quoted back.
  if (SETTINGS[key].secret && /\s/.test(v)) throw new UsageError(`config set ${name}: the value holds a space or a line break, which no key has; nothing was saved`);
  // As --api-key does: said to a person at a terminal.
  if (SETTINGS[key].secret && onArgv && ctx.io.stderr.isTTY) {
    await ctx.warn(`a key given on the command line is visible to other users in the process list and stays in your shell history; \`smslink config set ${name}\` asks for it instead.`);
  }
  const problem = SETTINGS[key].check?.(v);
  // The key is never quoted back (it is secret, and has no rule to break).
  if (problem) throw new UsageError(`config set ${invalidValue(name, SETTINGS[key].quoted?.(v) ?? v, problem, SETTINGS[key].choices)}`);
  const host = key === 'baseUrl' ? withoutServicePath(v) : undefined;
  if (host) {
    ctx.note(servicePathNote(name, v, host, 'saved'));
    v = host;
  }
  const profile = ctx.profile();
  const path = await updateProfile(ctx.env, profile, (data) => (data[key] = v));
  ctx.note(`Saved ${name} = ${show(key, v)} in profile "${profile}" (${path}).`);
  return EXIT.OK;
}

export const CONFIG_SET: CommandDef = {
  path: ['config', 'set'],
  summary: 'Save a setting in the current profile (- reads the value from stdin)',
  flags: (cmd) => cmd.addArgument(settingArgument()).argument('[value]', 'the value; - (or nothing, for api-key) asks for it on a terminal, else reads stdin'),
  about: `On a terminal, \`config set api-key\` asks "${KEY_PROMPT.trim()}" and shows nothing
as you type or paste; press Enter. With stdin piped, the value is read from
it instead, so the key stays out of shell history either way.`,
  examples: [
    'smslink config set base-url https://api.example.com',
    'smslink config set api-key',
    'smslink --profile staging config set api-key - < staging-key.txt',
    'smslink config set output csv',
  ],
  run: (ctx, _opts, [name, value]) => set(ctx, name as string, value as string | undefined),
};
