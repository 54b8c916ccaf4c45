// Registers `smslink login` and `smslink status`. Top-level, as stripe,
// netlify and vercel have `login`: smslink has one credential per profile and
// keeps profiles under `config`, so an `auth` noun (gh has several verbs
// there) would hold two commands. The help of each names gh's equivalent.

import type { Command } from 'commander';
import { UsageError } from '../exit-codes.js';
import { examples, type CliValues } from './operation.js';
import type { AddCommand, Runner } from './run.js';

export function registerAuth(command: AddCommand, runner: Runner): void {
  command('login', 'Set up a profile: ask for the base URL and API key, check them, save them')
    ?.option('--with-key', 'read the API key from stdin (for scripts; give --base-url too)')
    .addHelpText(
      'after',
      `
Like \`gh auth login\`. On a terminal it asks for the base URL (Enter keeps the
profile's current one) and the key, which is not shown as you type or paste.
The key is checked with one call (Message/GetSMSStatus of one id) and saved,
with the base URL, in the profile (--profile, else the current one) only
when the service accepts it. Without a terminal, give --base-url and pipe
the key in with --with-key. Exit 0 saved, 2 usage, 3 service unreachable,
4 key refused (code 13 names your region's host); 130 on Ctrl-C. Nothing is
saved unless the exit code is 0.
${examples([
  'smslink login',
  'smslink --profile staging login --base-url https://api.example.com',
  'smslink login --base-url https://api.example.com --with-key < key.txt',
  'echo "$KEY" | smslink login --base-url https://api.example.com --with-key',
])}`,
    )
    .action((opts: CliValues, cmd: Command) => runner(cmd, async (ctx) => (await import('./login.js')).login(ctx, opts)));

  command('status', 'Show the profile, base URL and API key in use, and whether the service accepts the key')
    ?.addHelpText(
      'after',
      `
Like \`gh auth status\`. Shows where each setting comes from (flag,
environment, profile), the key masked, and checks the key with one call
(Message/GetSMSStatus of one id). -o json gives the same as an object; -q
prints nothing and leaves the answer to the exit code: 0 accepted, 4 refused
or not configured, 3 service unreachable. For a message's delivery status,
see \`smslink message status <id>\`.
${examples(['smslink status', 'smslink --profile staging status', 'smslink status -o json', 'smslink status -q && echo ready'])}`,
    )
    // `smslink status 123456` is someone after a message's status: say where it is.
    .allowExcessArguments(true)
    .action((_opts: CliValues, cmd: Command) =>
      runner(cmd, async (ctx) => {
        if (cmd.args.length) throw new UsageError(`status takes no arguments; for the delivery status of a message, run \`smslink message status ${cmd.args.join(' ')}\``);
        return (await import('./status.js')).status(ctx);
      }),
    );
}
