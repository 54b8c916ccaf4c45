// `smslink sandbox`: the local sandbox that --sandbox and serve share; its
// verbs are a file each beside this one.

import type { GroupDef } from '../core/command.js';

export const SANDBOX: GroupDef = {
  path: ['sandbox'],
  group: true,
  summary: 'Show or empty the local sandbox used by --sandbox and serve',
  examples: ['smslink --sandbox link create https://example.com/a', 'smslink sandbox path', 'smslink sandbox reset'],
};
