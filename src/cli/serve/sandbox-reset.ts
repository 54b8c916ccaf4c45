// `smslink sandbox reset`: empties the sandbox, after a question at a terminal.

import { existsSync } from 'node:fs';
import type { CommandDef, CliValues } from '../core/command.js';
import type { RunContext } from '../core/context.js';
import { askFirst, YES_OPTION } from '../core/prompt.js';
import { EXIT } from '../../exit-codes.js';

async function reset(ctx: RunContext, opts: CliValues): Promise<number> {
  const { resetSandbox, sandboxDbPath } = await import('../../emulator/sandbox.js');
  const path = sandboxDbPath(ctx.env);
  if (!existsSync(path)) {
    (await import('../../mirror/index.js')).removeSandboxMirror(ctx.env);
    ctx.note(`The sandbox is already empty (${path} does not exist).`);
    return EXIT.OK;
  }
  if (ctx.globals.dryRun) {
    ctx.note(`dry run: would delete everything in the sandbox (${path}); nothing was changed`);
    return EXIT.OK;
  }
  const declined = await askFirst(ctx, opts, `Delete everything in the sandbox (${path})?`, 'Nothing deleted.');
  if (declined !== undefined) return declined;
  await resetSandbox(ctx.env);
  (await import('../../mirror/index.js')).removeSandboxMirror(ctx.env);
  ctx.note(`Sandbox emptied: ${path}`);
  return EXIT.OK;
}

export const SANDBOX_RESET: CommandDef = {
  path: ['sandbox', 'reset'],
  summary: 'Delete everything in the sandbox (safe while serve runs on it)',
  flags: (cmd) => cmd.option(...YES_OPTION),
  about: `On a terminal it first asks "Delete everything in the sandbox (<path>)? [y/N]";
any answer but y or yes leaves it as it is and exits 2. --yes skips the
question; nothing is asked when stdin is not a terminal. --dry-run says what
would be emptied and empties nothing.`,
  examples: ['smslink sandbox reset', 'smslink sandbox reset --yes'],
  run: (ctx, opts) => reset(ctx, opts),
};
