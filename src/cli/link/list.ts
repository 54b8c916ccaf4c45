// `smslink link list`: a page of links, or every page (--all, --limit).

import { linkList } from '../../catalog/link.js';
import type { CommandDef } from '../core/command.js';
import { listCommand } from '../shared/paging.js';

export const LINK_LIST: CommandDef = listCommand(linkList as typeof linkList & { command: readonly string[] }, 'links', undefined, [
  'smslink link list',
  'smslink link list --status active --sort clickCnt:desc --page-size 50',
  'smslink link list --created-from 2026-01-01 --query promo -o csv',
  'smslink link list --all -o ndjson > links.ndjson',
]);
