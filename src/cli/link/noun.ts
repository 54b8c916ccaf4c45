// `smslink link`: the noun's help; its verbs are a file each beside this one.

import type { GroupDef } from '../core/command.js';

export const LINK: GroupDef = {
  path: ['link'],
  group: true,
  summary: 'Create, find, change and delete short links',
  about: 'A link is named by its id (all digits), its code, or its short link; a code of\ndigits alone (4821) by its short link, as digits alone are an id.',
  examples: [
    'smslink link create https://example.com/spring-sale --comment spring',
    'smslink link list --query spring',
    'smslink link stats ddoj --since 7d',
    'smslink link update https://sho.rt/ddoj --status inactive',
  ],
};
