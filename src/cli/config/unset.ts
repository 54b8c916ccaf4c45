// `smslink config unset <name>`: removes a setting from the current profile.

import { updateProfile } from '../../config/file.js';
import type { CommandDef } from '../core/command.js';
import { EXIT } from '../../exit-codes.js';
import { keyOf, settingArgument } from './setting.js';

export const CONFIG_UNSET: CommandDef = {
  path: ['config', 'unset'],
  summary: 'Remove a setting from the current profile',
  flags: (cmd) => cmd.addArgument(settingArgument()),
  examples: ['smslink config unset sender', 'smslink --profile staging config unset api-key'],
  async run(ctx, _opts, [name]) {
    const key = keyOf(name as string);
    const profile = ctx.profile();
    await updateProfile(ctx.env, profile, (data) => delete data[key]);
    ctx.note(`Removed ${name} from profile "${profile}".`);
    return EXIT.OK;
  },
};
