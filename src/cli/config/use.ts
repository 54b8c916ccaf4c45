// `smslink config use <profile>`: makes a profile the default one; a profile
// that does not exist is refused here rather than by every later command.

import { Argument } from 'commander';
import { updateConfigFile } from '../../config/file.js';
import type { CommandDef } from '../core/command.js';
import { completing } from '../core/flags.js';
import { EXIT, UsageError } from '../../exit-codes.js';
import { unknownName } from '../../output/words.js';

export const CONFIG_USE: CommandDef = {
  path: ['config', 'use'],
  summary: 'Make a profile the default one',
  flags: (cmd) => cmd.addArgument(completing(new Argument('<profile>', 'profile name'), 'profiles')),
  examples: ['smslink config use staging', 'smslink config use default'],
  async run(ctx, _opts, [typed]) {
    const profile = typed as string;
    await updateConfigFile(ctx.env, (file) => {
      const names = Object.keys(file.profiles ?? {});
      if (!names.includes(profile) && profile !== 'default') {
        throw new UsageError(
          `config use: ${unknownName('profile', profile, ['default', ...names])}; profiles: ${names.join(', ') || 'none yet'}; ` +
            `create it first with \`smslink --profile ${profile} config set base-url https://...\``,
        );
      }
      file.currentProfile = profile;
    });
    ctx.note(`Now using profile "${profile}".`);
    return EXIT.OK;
  },
};
