// `smslink config path`: where the config file is.

import { configPath } from '../../config/file.js';
import type { CommandDef } from '../core/command.js';
import { EXIT } from '../../exit-codes.js';

export const CONFIG_PATH: CommandDef = {
  path: ['config', 'path'],
  summary: 'Print the path of the config file',
  examples: ['smslink config path', 'SMSLINK_CONFIG_DIR=./ci-config smslink config path'],
  async run(ctx) {
    ctx.stdout.write(`${configPath(ctx.env)}\n`);
    return EXIT.OK;
  },
};
