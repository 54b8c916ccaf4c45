// `smslink inbox`: the messages the emulator received, for tests of an app
// that sends SMS; its verbs are a file each beside this one.

import type { GroupDef } from '../core/command.js';

export const INBOX: GroupDef = {
  path: ['inbox'],
  group: true,
  summary: "Read the emulator's inbox: list, wait for a message, choose its fate (tests)",
  about: `The messages an app sent to the emulator, as its test reads them: from
the sandbox (--sandbox) or from a running \`smslink serve\` (--base-url, the
address it printed). Not the live service: it has no inbox. They talk to the
emulator's control API (docs/emulator-reference.md); when serve has a
--control-token, set SMSLINK_CONTROL_TOKEN.`,
  examples: [
    'smslink inbox list --base-url http://127.0.0.1:8080 --to +77011234567',
    `smslink inbox wait --to +77011234567 --jq '.text | capture("(?<code>[0-9]{4,6})").code'`,
    'smslink inbox set-status 12 undelivered',
  ],
};
