// `smslink message`: the noun's help; its verbs are a file each beside this one.

import type { GroupDef } from '../core/command.js';

export const MESSAGE: GroupDef = {
  path: ['message'],
  group: true,
  summary: 'Send single SMS messages and follow their delivery',
  examples: [
    'smslink message send --to +77011234567 --text "Your code is 4711" --wait',
    'smslink message status 123456',
    'smslink message get 123456',
    'smslink message ls --status undelivered --sent-from 1d',
  ],
};
