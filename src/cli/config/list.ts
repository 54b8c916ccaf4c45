// `smslink config list`: every setting, its value and where it comes from.

import { SETTINGS } from '../../config/resolve.js';
import { configPath, SETTING_KEYS } from '../../config/file.js';
import type { CommandDef } from '../core/command.js';
import { EXIT } from '../../exit-codes.js';
import { renderRows } from '../../output/format.js';
import { show } from './setting.js';

export const CONFIG_LIST: CommandDef = {
  path: ['config', 'list'],
  summary: 'Show every setting, its value and where it comes from',
  alias: 'ls',
  examples: ['smslink config list', 'SMSLINK_PROFILE=staging smslink config list -o json'],
  async run(ctx) {
    const settings = ctx.settings();
    // Still listed (the flags and environment apply), but a typo in the profile's name is said.
    const noProfile = ctx.missingProfile();
    if (noProfile) await ctx.warn(noProfile);
    ctx.page();
    const rows = [
      { setting: 'profile', value: settings.profile.value ?? '', source: settings.profile.origin },
      ...SETTING_KEYS.map((k) => ({ setting: SETTINGS[k].name, value: show(k, settings[k].value), source: settings[k].value === undefined ? 'not set' : settings[k].origin })),
    ];
    await renderRows(ctx.stdout, await ctx.view({ output: { rows: 'array', columns: ['setting', 'value', 'source'], primary: 'value' } }), rows);
    const profiles = Object.keys(ctx.store().profiles ?? {});
    if (ctx.format() === 'table' && profiles.length) ctx.note(`Profiles: ${profiles.join(', ')} (config file: ${configPath(ctx.env)})`);
    return EXIT.OK;
  },
};
