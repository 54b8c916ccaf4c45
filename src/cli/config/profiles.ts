// `smslink config profiles`: each profile with its base URL; -q gives the
// names alone (shell completion reads them so).

import type { CommandDef } from '../core/command.js';
import { EXIT } from '../../exit-codes.js';
import { renderRows } from '../../output/format.js';

export const CONFIG_PROFILES: CommandDef = {
  path: ['config', 'profiles'],
  summary: 'List the profiles, the current one marked',
  examples: ['smslink config profiles', 'smslink config profiles -q   # the names alone'],
  async run(ctx) {
    const current = ctx.profile();
    const rows = Object.entries(ctx.store().profiles ?? {}).map(([name, data]) => ({ profile: name, current: name === current, baseUrl: data.baseUrl ?? null }));
    const view = await ctx.view({ output: { rows: 'array', columns: ['profile', 'current', 'baseUrl'], primary: 'profile' } });
    if (!rows.length && view.format === 'table' && !view.quiet) ctx.note('No profiles yet; `smslink login` creates one.');
    else await renderRows(ctx.stdout, view, rows);
    return EXIT.OK;
  },
};
