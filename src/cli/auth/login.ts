// `smslink login`: the first run, as `gh auth login` does it. Asks for the
// base URL and the key (hidden) on a terminal, or takes --base-url and the
// key piped in with --with-key; checks them with one call; saves both in the
// profile only when the service accepted the key.

import { withoutServicePath } from '../../client/base-url.js';
import { maskKey, servicePathNote, SETTINGS, withoutCredentials } from '../../config/resolve.js';
import { updateProfile } from '../../config/file.js';
import { painter } from '../../output/color.js';
import { elapsed } from '../../output/words.js';
import type { CommandDef, CliValues } from '../core/command.js';
import { RunContext } from '../core/context.js';
import { KEY_PROMPT, promptLine, promptSecret } from '../core/prompt.js';
import { readStdin } from '../core/streams.js';
import { ExitError, UsageError } from '../../exit-codes.js';
import { checkKey, CHECK_OPERATION } from './key-check.js';

const EXAMPLE_URL = 'https://api.example.com';

/** A base URL as saved: without a trailing slash, and without the /service smslink adds itself (said). */
function saved(ctx: RunContext, value: string, name: string): string {
  const host = withoutServicePath(value);
  if (host) ctx.note(servicePathNote(name, value, host, 'using'));
  return (host ?? value).replace(/\/+$/, '');
}

function checkBaseUrl(ctx: RunContext, value: string, name: string): string {
  const problem = SETTINGS.baseUrl.check?.(value);
  if (problem) throw new UsageError(`${name}: "${withoutCredentials(value)}" ${problem}`);
  return saved(ctx, value, name);
}

/** Asks until the answer is a base URL; Enter keeps `known`. */
async function askBaseUrl(ctx: RunContext, known: string | undefined): Promise<string> {
  const hint = known ? ` [${known}]` : ` (your regional API host, e.g. ${EXAMPLE_URL})`;
  for (;;) {
    const answer = (await promptLine(ctx, `Base URL${hint}: `)) || known || '';
    const problem = answer ? SETTINGS.baseUrl.check?.(answer) : undefined;
    if (answer && !problem) return saved(ctx, answer, 'base URL');
    ctx.note(answer ? `"${withoutCredentials(answer)}" ${problem}` : `A base URL is needed, e.g. ${EXAMPLE_URL}.`);
  }
}

async function baseUrlFor(ctx: RunContext, interactive: boolean, known: string | undefined): Promise<string> {
  if (ctx.globals.baseUrl !== undefined) return checkBaseUrl(ctx, ctx.globals.baseUrl, '--base-url');
  if (interactive) return askBaseUrl(ctx, known);
  if (known) return checkBaseUrl(ctx, known, 'base-url');
  throw new UsageError(`login: give --base-url, the URL of your regional API host (e.g. ${EXAMPLE_URL})`);
}

async function login(ctx: RunContext, opts: CliValues): Promise<number> {
  if (ctx.sandbox) {
    throw new UsageError(
      'login: the sandbox needs no login (it accepts its own key). To log in to the emulator of `smslink serve`, ' +
        'run `smslink login --base-url http://127.0.0.1:8080` without --sandbox and give the key it printed (sandbox by default).',
    );
  }
  if (ctx.globals.apiKey !== undefined) {
    throw new UsageError('login: --api-key would leave the key in your shell history and the process list; leave it out to be asked for it, or pipe it in with --with-key');
  }
  const interactive = ctx.io.stdin.isTTY === true;
  if (!interactive && opts.withKey !== true) {
    throw new UsageError(`login: stdin is not a terminal, so nothing can be asked; pipe the key in with --with-key, e.g. \`smslink login --base-url ${EXAMPLE_URL} --with-key < key.txt\``);
  }
  const profile = ctx.profile();
  const saved = ctx.store().profiles?.[profile] ?? {};
  const baseUrl = await baseUrlFor(ctx, interactive, saved.baseUrl ?? ctx.env.SMSLINK_BASE_URL);
  const apiKey = interactive ? await promptSecret(ctx, KEY_PROMPT) : (await readStdin(ctx.io)).trim();
  if (!apiKey) throw new UsageError(`login: no API key was ${interactive ? 'entered' : 'given on stdin'}; nothing was saved`);

  // The key is checked with the run's own network settings (--proxy, --ca-file, --timeout) before anything is saved.
  const checker = new RunContext(ctx.io, ctx.globals, { baseUrl, apiKey });
  let check;
  try {
    check = await checkKey(() => checker.client());
  } finally {
    await checker.close();
  }
  if (!check.accepted) throw new ExitError(`login: ${check.problem}\nNothing was saved.`, check.code);

  const path = await updateProfile(ctx.env, profile, (data) => Object.assign(data, { baseUrl, apiKey }));
  const paint = await painter(ctx.colorFor(ctx.io.stderr));
  ctx.note(`${paint.green('✓')} ${baseUrl} accepted the key ${maskKey(apiKey)} (${CHECK_OPERATION}, ${elapsed(check.ms)}).`);
  ctx.note(`${paint.green('✓')} Saved base-url and api-key in profile "${profile}" (${path}).`);
  for (const env of ['SMSLINK_API_KEY', 'SMSLINK_BASE_URL'] as const) {
    if (ctx.env[env]) await ctx.warn(`${env} is set and is used instead of the profile's value; unset it to use what was just saved.`);
  }
  if (profile !== (ctx.store().currentProfile ?? 'default')) {
    ctx.note(`Use it with --profile ${profile}, or make it the default with \`smslink config use ${profile}\`.`);
  }
  return 0;
}

export const LOGIN: CommandDef = {
  path: ['login'],
  summary: 'Set up a profile: ask for the base URL and API key, check them, save them',
  flags: (cmd) => cmd.option('--with-key', 'read the API key from stdin (for scripts; give --base-url too)'),
  about: `Like \`gh auth login\`. On a terminal it asks for the base URL (Enter keeps the
profile's current one) and the key, which is not shown as you type or paste.
The key is checked with one call (Message/GetSMSStatus of one id) and saved,
with the base URL, in the profile (--profile, else the current one) only
when the service accepts it. Without a terminal, give --base-url and pipe
the key in with --with-key. Exit 0 saved, 2 usage, 3 service unreachable,
4 key refused (code 13 names your region's host); 130 on Ctrl-C. Nothing is
saved unless the exit code is 0.`,
  examples: [
  'smslink login',
  'smslink --profile staging login --base-url https://api.example.com',
  'smslink login --base-url https://api.example.com --with-key < key.txt',
  'echo "$KEY" | smslink login --base-url https://api.example.com --with-key',
],
  run: (ctx, opts) => login(ctx, opts),
};
