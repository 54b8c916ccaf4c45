// `smslink config ...`: the local store of profiles (base URL, API key,
// defaults). `config list` shows every setting with the place it came from.

import { Argument, type Command } from 'commander';
import { helpWhenAlone } from './help.js';
import { maskKey, resolveProfile, SETTINGS, settingByName } from '../config/resolve.js';
import { configPath, SETTING_KEYS, updateConfigFile, updateProfile, type SettingKey } from '../config/file.js';
import type { RunContext } from './context.js';
import { readStdin } from './common.js';
import { registerSecret } from '../secrets.js';
import { EXIT, UsageError } from '../exit-codes.js';
import { examples, type CliValues } from './operation.js';
import type { Reach, Runner } from './run.js';
import { completing } from './completion.js';

/** The question for an API key, as gh and stripe ask it. */
export const KEY_PROMPT = 'Paste your API key: ';

const NAMES = SETTING_KEYS.map((k) => SETTINGS[k].name).join(', ');
const settingArgument = () => completing(new Argument('<name>', NAMES), SETTING_KEYS.map((k) => SETTINGS[k].name));

function keyOf(name: string): SettingKey {
  const key = settingByName(name);
  if (!key) throw new UsageError(`unknown setting "${name}"; settings: ${NAMES}`);
  return key;
}

function show(key: SettingKey, value: string | undefined): string {
  if (value === undefined) return '';
  return SETTINGS[key].secret ? maskKey(value) : value;
}

/** The profile a command reads and writes: --profile > SMSLINK_PROFILE > `config use` > default. */
export function currentProfile(ctx: RunContext): string {
  return resolveProfile({ profile: ctx.globals.profile }, ctx.env, ctx.store()).value!;
}

/** A value given as - (or an API key given as nothing): asked for on a terminal, else read from stdin. */
async function valueFromInput(ctx: RunContext, key: SettingKey, name: string): Promise<string> {
  if (!ctx.io.stdin.isTTY) return (await readStdin(ctx)).trim();
  const { promptLine, promptSecret } = await import('./prompt.js');
  return SETTINGS[key].secret ? promptSecret(ctx, KEY_PROMPT) : promptLine(ctx, `${name}: `);
}

async function set(ctx: RunContext, name: string, value: string | undefined): Promise<number> {
  const key = keyOf(name);
  let v = value;
  if (v === undefined || v === '-') {
    if (v === undefined && !SETTINGS[key].secret) throw new UsageError(`config set ${name}: give a value (or - to read it from stdin)`);
    v = await valueFromInput(ctx, key, name);
  }
  if (!v) throw new UsageError(`config set ${name}: the value is empty; nothing was saved`);
  if (SETTINGS[key].secret) registerSecret(v);
  const problem = SETTINGS[key].check?.(v);
  if (problem) throw new UsageError(`config set ${name}: "${v}" ${problem}`);
  const profile = currentProfile(ctx);
  const path = await updateProfile(ctx.env, profile, (data) => (data[key] = v));
  ctx.note(`Saved ${name} = ${show(key, v)} in profile "${profile}" (${path}).`);
  return EXIT.OK;
}

async function unset(ctx: RunContext, name: string): Promise<number> {
  const key = keyOf(name);
  const profile = currentProfile(ctx);
  await updateProfile(ctx.env, profile, (data) => delete data[key]);
  ctx.note(`Removed ${name} from profile "${profile}".`);
  return EXIT.OK;
}

async function list(ctx: RunContext): Promise<number> {
  const settings = ctx.settings();
  ctx.page();
  const rows = [
    { setting: 'profile', value: settings.profile.value ?? '', source: settings.profile.origin },
    ...SETTING_KEYS.map((k) => ({ setting: SETTINGS[k].name, value: show(k, settings[k].value), source: settings[k].value === undefined ? 'not set' : settings[k].origin })),
  ];
  const { renderRows } = await import('../output/format.js');
  await renderRows(ctx.stdout, await ctx.view({ output: { rows: 'array', columns: ['setting', 'value', 'source'], primary: 'value' } }), rows);
  const profiles = Object.keys(ctx.store().profiles ?? {});
  if (ctx.format() === 'table' && profiles.length) ctx.note(`Profiles: ${profiles.join(', ')} (config file: ${configPath(ctx.env)})`);
  return EXIT.OK;
}

/** `config profiles`: each profile with its base URL; -q gives the names alone (shell completion uses it). */
async function profiles(ctx: RunContext): Promise<number> {
  const store = ctx.store();
  const current = currentProfile(ctx);
  const rows = Object.entries(store.profiles ?? {}).map(([name, data]) => ({ profile: name, current: name === current, baseUrl: data.baseUrl ?? null }));
  const { renderRows } = await import('../output/format.js');
  const view = await ctx.view({ output: { rows: 'array', columns: ['profile', 'current', 'baseUrl'], primary: 'profile' } });
  if (!rows.length && view.format === 'table' && !view.quiet) ctx.note('No profiles yet; `smslink login` creates one.');
  else await renderRows(ctx.stdout, view, rows);
  return EXIT.OK;
}

/** Registers the noun; its subcommands as far as the run can reach them (see buildProgram in run.ts). */
export function registerConfig(program: Command, runner: Runner, reach: Reach): void {
  const config = helpWhenAlone(program.command('config'))
    .description('Manage settings and profiles (base URL, API key, defaults)')
    .addHelpText(
      'after',
      `
Settings: ${NAMES}.
Precedence: flag > environment (SMSLINK_API_KEY, SMSLINK_BASE_URL,
SMSLINK_PROFILE, SMSLINK_OUTPUT, SMSLINK_TIMEOUT, SMSLINK_RETRIES,
SMSLINK_SENDER) > profile > default.
The file is written with mode 0600; SMSLINK_CONFIG_DIR moves it.
${examples([
  'smslink config set base-url https://api.example.com',
  'smslink login                # asks for the base URL and key, checks, saves',
  'smslink config set api-key   # asks; nothing is shown as you paste the key',
  'echo "$KEY" | smslink config set api-key -   # from a script',
  'smslink --profile staging config set base-url https://staging.example.com',
  'smslink config use staging',
  'smslink config list',
])}`,
    );

  if (!reach.noun('config')) return;
  const verb = reach.among(config, ['set', 'get', 'unset', 'list', 'profiles', 'use', 'path']);
  verb('set', 'Save a setting in the current profile (- reads the value from stdin)')
    ?.addArgument(settingArgument())
    .argument('[value]', 'the value; - (or nothing, for api-key) asks for it on a terminal, else reads stdin')
    .addHelpText(
      'after',
      `
On a terminal, \`config set api-key\` asks "${KEY_PROMPT.trim()}" and shows nothing
as you type or paste; press Enter. With stdin piped, the value is read from
it instead, so the key stays out of shell history either way.
${examples([
  'smslink config set base-url https://api.example.com',
  'smslink config set api-key',
  'smslink --profile staging config set api-key - < staging-key.txt',
  'smslink config set output csv',
])}`,
    )
    .action((name: string, value: string | undefined, _o: CliValues, cmd: Command) => runner(cmd, (ctx) => set(ctx, name, value)));

  verb('get', 'Print one setting as resolved (the API key masked)')
    ?.addArgument(settingArgument())
    .addHelpText('after', examples(['smslink config get base-url', 'smslink --profile staging config get output']))
    .action((name: string, _o: CliValues, cmd: Command) =>
      runner(cmd, async (ctx) => {
        const key = keyOf(name);
        const value = ctx.settings()[key].value;
        if (value === undefined) {
          // Exit 6 alone would leave a person guessing; scripts see the empty stdout and the code.
          ctx.note(`${name} is not set (no flag, environment variable or value in profile "${currentProfile(ctx)}")`);
          return EXIT.NOT_FOUND;
        }
        ctx.stdout.write(`${show(key, value)}\n`);
      }),
    );

  verb('unset', 'Remove a setting from the current profile')
    ?.addArgument(settingArgument())
    .addHelpText('after', examples(['smslink config unset sender', 'smslink --profile staging config unset api-key']))
    .action((name: string, _o: CliValues, cmd: Command) => runner(cmd, (ctx) => unset(ctx, name)));

  verb('list', 'Show every setting, its value and where it comes from')
    ?.addHelpText('after', examples(['smslink config list', 'SMSLINK_PROFILE=staging smslink config list -o json']))
    .action((_o: CliValues, cmd: Command) => runner(cmd, (ctx) => list(ctx)));

  verb('profiles', 'List the profiles, the current one marked')
    ?.addHelpText('after', examples(['smslink config profiles', 'smslink config profiles -q   # the names alone']))
    .action((_o: CliValues, cmd: Command) => runner(cmd, (ctx) => profiles(ctx)));

  verb('use', 'Make a profile the default one')
    ?.addArgument(completing(new Argument('<profile>', 'profile name'), 'profiles'))
    .addHelpText('after', examples(['smslink config use staging', 'smslink config use default']))
    .action((profile: string, _o: CliValues, cmd: Command) =>
      runner(cmd, async (ctx) => {
        await updateConfigFile(ctx.env, (file) => {
          const names = Object.keys(file.profiles ?? {});
          // Every later command would fail on a profile that does not exist (exit 4): a typo is caught here.
          if (!names.includes(profile) && profile !== 'default') {
            throw new UsageError(
              `config use: there is no profile "${profile}" (profiles: ${names.join(', ') || 'none yet'}); ` +
                `create it first with \`smslink --profile ${profile} config set base-url https://...\``,
            );
          }
          file.currentProfile = profile;
        });
        ctx.note(`Now using profile "${profile}".`);
      }),
    );

  verb('path', 'Print the path of the config file')
    ?.addHelpText('after', examples(['smslink config path', 'SMSLINK_CONFIG_DIR=./ci-config smslink config path']))
    .action((_o: CliValues, cmd: Command) =>
      runner(cmd, async (ctx) => {
        ctx.stdout.write(`${configPath(ctx.env)}\n`);
      }),
    );
}
