// `smslink link campaign <campaignId>`: the links of a campaign with their
// clicks and redirects; nothing of its own beyond the catalog's entry.

import { linkCampaign } from '../../catalog/link.js';
import type { CommandDef } from '../core/command.js';
import { operationCommand } from '../shared/operation-command.js';
import { notFound } from '../../output/words.js';

export const LINK_CAMPAIGN: CommandDef = operationCommand(linkCampaign as typeof linkCampaign & { command: readonly string[] }, {
  examples: ['smslink link campaign 9001', 'smslink link campaign 9001 -o csv --fields shortLink,clickCnt,redirectCnt'],
  none: (input) => `no links in campaign ${input.campaignId}`,
  notFound: (input) => notFound('campaign', [String(input.campaignId)]),
});
