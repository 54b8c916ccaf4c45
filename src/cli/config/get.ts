// `smslink config get <name>`: one setting as resolved (the key masked);
// exit 6 when it is set nowhere, 4 when the profile named does not exist.

import type { CommandDef } from '../core/command.js';
import { ConfigError } from '../../client/errors.js';
import { EXIT } from '../../exit-codes.js';
import { keyOf, settingArgument, show } from './setting.js';

export const CONFIG_GET: CommandDef = {
  path: ['config', 'get'],
  summary: 'Print one setting as resolved (the API key masked)',
  flags: (cmd) => cmd.addArgument(settingArgument()),
  examples: ['smslink config get base-url', 'smslink --profile staging config get output'],
  async run(ctx, _opts, [name]) {
    const key = keyOf(name as string);
    const noProfile = ctx.missingProfile();
    if (noProfile) throw new ConfigError(noProfile);
    const value = ctx.settings()[key].value;
    if (value === undefined) {
      // Exit 6 alone would leave a person guessing; scripts see the empty stdout and the code.
      ctx.note(`${name} is not set (no flag, environment variable or value in profile "${ctx.profile()}")`);
      return EXIT.NOT_FOUND;
    }
    ctx.stdout.write(`${show(key, value)}\n`);
    return EXIT.OK;
  },
};
