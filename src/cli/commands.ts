// Every command of smslink, in the order `smslink --help` lists them, under
// its headings. A command is one definition (src/cli/core/command.ts) in a
// file of its noun's folder; adding one is that file and a line here.
// src/cli/program.ts builds commander's tree from this list.

import { OPERATIONS } from '../catalog/index.js';
import type { OperationSpec } from '../catalog/types.js';
import type { Definition } from './core/command.js';
import { HELP } from './core/help.js';
import { operationCommand } from './shared/operation-command.js';
import { API } from './api/api.js';
import { LOGIN } from './auth/login.js';
import { BALANCE } from './balance/balance.js';
import { STATUS } from './auth/status.js';
import { COMPLETION } from './completion/completion.js';
import { CONFIG } from './config/noun.js';
import { CONFIG_GET } from './config/get.js';
import { CONFIG_LIST } from './config/list.js';
import { CONFIG_PATH } from './config/path.js';
import { CONFIG_PROFILES } from './config/profiles.js';
import { CONFIG_SET } from './config/set.js';
import { CONFIG_UNSET } from './config/unset.js';
import { CONFIG_USE } from './config/use.js';
import { INBOX } from './inbox/noun.js';
import { INBOX_LIST } from './inbox/list.js';
import { INBOX_SET_STATUS } from './inbox/set-status.js';
import { INBOX_WAIT } from './inbox/wait.js';
import { LINK } from './link/noun.js';
import { LINK_CAMPAIGN } from './link/campaign.js';
import { LINK_CREATE } from './link/create.js';
import { LINK_DELETE } from './link/delete.js';
import { LINK_GET } from './link/get.js';
import { LINK_LIST } from './link/list.js';
import { LINK_STATS } from './link/stats.js';
import { LINK_UPDATE } from './link/update.js';
import { MESSAGE } from './message/noun.js';
import { MESSAGE_GET } from './message/get.js';
import { MESSAGE_LIST } from './message/list.js';
import { MESSAGE_SEND } from './message/send.js';
import { MESSAGE_STATUS } from './message/status.js';
import { REPORT } from './mirror/report.js';
import { REPORT_DELIVERY } from './mirror/report-delivery.js';
import { REPORT_LINKS } from './mirror/report-links.js';
import { SEARCH } from './mirror/search.js';
import { SYNC } from './mirror/sync.js';
import { SANDBOX } from './serve/sandbox.js';
import { SANDBOX_PATH } from './serve/sandbox-path.js';
import { SANDBOX_RESET } from './serve/sandbox-reset.js';
import { SERVE } from './serve/serve.js';
import { SERVE_INIT } from './serve/init.js';
import { SERVE_WAIT } from './serve/wait.js';

export interface Section {
  /** The heading the root help lists its commands under. */
  heading: string;
  definitions: readonly Definition[];
}

const SECTIONS: readonly Section[] = [
  {
    heading: 'Commands:',
    definitions: [
      LINK, LINK_CREATE, LINK_GET, LINK_LIST, LINK_UPDATE, LINK_DELETE, LINK_STATS, LINK_CAMPAIGN,
      MESSAGE, MESSAGE_SEND, MESSAGE_STATUS, MESSAGE_LIST, MESSAGE_GET,
      BALANCE,
    ],
  },
  { heading: 'Mirror commands:', definitions: [SYNC, REPORT, REPORT_DELIVERY, REPORT_LINKS, SEARCH] },
  {
    heading: 'Setup commands:',
    definitions: [CONFIG, CONFIG_SET, CONFIG_GET, CONFIG_UNSET, CONFIG_LIST, CONFIG_PROFILES, CONFIG_USE, CONFIG_PATH, LOGIN, STATUS, COMPLETION],
  },
  {
    heading: 'Emulator commands:',
    definitions: [SERVE, SERVE_INIT, SERVE_WAIT, INBOX, INBOX_LIST, INBOX_WAIT, INBOX_SET_STATUS, SANDBOX, SANDBOX_PATH, SANDBOX_RESET],
  },
  { heading: 'Other commands:', definitions: [API, HELP] },
];

type CommandOperation = OperationSpec & { command: readonly [string, string] };

/**
 * The sections, with a plain command (shared/operation-command.ts) for every
 * catalog operation that names a command but has no definition here yet:
 * after the others of its noun.
 */
function withCatalog(sections: readonly Section[]): readonly Section[] {
  const defined = new Set(sections.flatMap((s) => s.definitions).map((d) => d.path.join(' ')));
  const missing = OPERATIONS.filter((op): op is CommandOperation => op.command !== undefined && !defined.has(op.command.join(' ')));
  return sections.map((section) => {
    const nouns = new Set(section.definitions.map((d) => d.path[0]));
    const added = missing.filter((op) => nouns.has(op.command[0])).map((op) => operationCommand(op));
    return added.length ? { ...section, definitions: [...section.definitions, ...added] } : section;
  });
}

export const COMMANDS: readonly Section[] = withCatalog(SECTIONS);
