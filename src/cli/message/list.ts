// `smslink message list`: a page of messages, every page (--all, --limit),
// several statuses merged, or --follow (follow.ts).

import { messageList } from '../../catalog/message.js';
import { statusGroupWord } from '../../output/words.js';
import type { CommandDef } from '../core/command.js';
import { listCommand } from '../shared/paging.js';
import { followable } from './follow.js';

export const MESSAGE_LIST: CommandDef = followable(
  listCommand(
    messageList,
    'messages',
    `Time criteria take every form of \`smslink help time\`: --sent-from 7d is 7
days ago, a day alone runs from 00:00:00 (-from) or to 23:59:59 (-to).

--status takes several statuses comma-separated (undelivered,rejected), or
the words report delivery's chart uses:
${statusGroupWord('failed')} and
${statusGroupWord('pending')}. The service takes one status
per request, so each is listed on its own and the lists are merged, newest
first or in --sort order. --limit n and --all work across them; --page does
not (exit 2). Without either, the first 25 (--page-size) are shown.

--follow prints what happens from then on, until Ctrl-C (exit 0): each
message sent, once, and each later change of its status; and the changes of
messages not yet final when it starts (the newest 100). Filters choose the
messages; --status prints each as it reaches the status, as --status
undelivered does a message sent a moment before. It asks every 1s
(--interval), less often while nothing changes (up to 10s). Each record has
"event": "new" or "status" (with previousStatus); json is written as
ndjson, one object per line, since the stream has no end.`,
    [
      'smslink message list --to 77011234567',
      'smslink message list --status UNDELIV --sent-from 2026-11-01 --with-number-info',
      'smslink message list --status undelivered,rejected --sent-from 7d --all',
      'smslink message list --sent-from 1d --sent-to now',
      'smslink message list --campaign-ids 9001,9002 --sort startSendTs:desc --all -o ndjson',
      'smslink message list --follow',
      'smslink message list --follow --to 77011234567 -o ndjson',
      'smslink message list --follow --status failed -q',
      'smslink message list --follow --jq \'select(.event == "status") | "\\(.id) \\(.status)"\'',
    ],
  ),
);
