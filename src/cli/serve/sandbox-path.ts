// `smslink sandbox path`: where the sandbox database is.

import type { CommandDef } from '../core/command.js';
import { EXIT } from '../../exit-codes.js';

export const SANDBOX_PATH: CommandDef = {
  path: ['sandbox', 'path'],
  summary: 'Print where the sandbox database is',
  examples: ['smslink sandbox path', 'sqlite3 "$(smslink sandbox path)" .tables'],
  async run(ctx) {
    const { sandboxDbPath } = await import('../../emulator/sandbox.js');
    ctx.stdout.write(`${sandboxDbPath(ctx.env)}\n`);
    return EXIT.OK;
  },
};
