// What the live service has beyond this emulator: modules and operations it
// does not model, answered truthfully (code 9: not carried out here) rather
// than as misspelt (4, 5), and the one operation it answers under a second
// name (Campaign/GetLinks, as Link/GetLinks). docs/emulator-wire.md "Operations
// this emulator does not model" lists them and says why code 9.

import { fail, type Answer } from './handler.js';

/** The code of an operation the live service has and this emulator does not model. */
export const NOT_MODELLED = 9;

/** Second names of modelled operations, lower case -> catalog id. The English documentation files the campaign's links under Campaign. */
export const ALIASES: Readonly<Record<string, { name: string; id: string }>> = {
  'campaign/getlinks': { name: 'Campaign/GetLinks', id: 'link.campaign' },
};

interface LiveModule {
  name: string;
  /** Operations the service's documentation or public clients call. */
  operations: readonly string[];
  /** Whether `operations` is the whole list (from the documentation): then any other name is misspelt (code 5). */
  complete: boolean;
}

/**
 * Modules of the live service (real-service-notes.md "Requests as clients
 * send them"), lower case. Operations come from the service's documentation
 * (Campaign, TaskQueue, User) and from public clients (the others): those
 * lists may be short of the live ones, so there any name is taken as live.
 */
export const LIVE_MODULES: ReadonlyMap<string, LiveModule> = new Map(
  (
    [
      { name: 'Campaign', operations: ['AddRecipients', 'Create', 'Delete', 'Get', 'GetInfo', 'GetLinks', 'List', 'Send'], complete: true },
      { name: 'TaskQueue', operations: ['GetStatus'], complete: true },
      { name: 'Alphaname', operations: ['List'], complete: false },
      { name: 'ContactGroup', operations: ['Create', 'Delete', 'GetCardsCount', 'List', 'Update'], complete: false },
      { name: 'ContactCard', operations: ['Create', 'Get', 'GetGroups', 'List', 'SetGroups', 'Update'], complete: false },
      { name: 'NumberStopList', operations: ['Create', 'Delete', 'List'], complete: false },
      { name: 'Price', operations: [], complete: false },
      { name: 'User', operations: ['GetOwnBalance'], complete: false },
    ] as const satisfies readonly LiveModule[]
  ).map((m) => [m.name.toLowerCase(), m]),
);

/** `module/operation` as the documentation spells it (`campaign/create` -> `Campaign/Create`), where it knows the operation; else as given. */
export function liveName(spelled: string): string {
  const [moduleName, operation = ''] = spelled.split('/');
  const live = LIVE_MODULES.get(moduleName.toLowerCase());
  const known = live?.operations.find((o) => o.toLowerCase() === operation.toLowerCase());
  return live && known ? `${live.name}/${known}` : spelled;
}

const WHERE = "smslink's docs/emulator.md lists what this emulator answers";

/** What the routes answer, by module: `Link, Message, Campaign/GetLinks, User/GetOwnBalance`. */
function answered(names: readonly string[]): string {
  const whole = [...new Set(names.map((n) => n.split('/')[0]))].filter((m) => !LIVE_MODULES.has(m.toLowerCase())).sort();
  const single = names.filter((n) => LIVE_MODULES.has(n.split('/')[0].toLowerCase())).sort();
  return [...whole, ...single].join(', ');
}

/**
 * The answer to `module/operation` (as spelled) that no route takes:
 * code 9 for an operation of the live service, 5 for a misspelt operation
 * of a known module, 4 for an unknown module. `routes`: the routed paths in
 * lower case, with their display names.
 */
export function unrouted(spelled: string, routes: ReadonlyMap<string, { name: string }>): Answer {
  const shown = spelled.slice(0, 100);
  const slash = shown.indexOf('/');
  const moduleName = slash < 0 ? shown : shown.slice(0, slash);
  const operation = slash < 0 ? '' : shown.slice(slash + 1);
  const lower = moduleName.toLowerCase();
  const names = [...routes.values()].map((r) => r.name);
  const modelled = names.filter((n) => n.toLowerCase().startsWith(`${lower}/`));
  const live = LIVE_MODULES.get(lower);
  const noMethod = (name: string, methods: readonly string[]) =>
    fail(5, `${operation === '' ? `No method given for module ${name}` : `Method ${operation} not found in module ${name}`}. Check the spelling and the documentation: ${name} has ${methods.join(', ')}.`);
  if (live) {
    const known = live.operations.find((o) => o.toLowerCase() === operation.toLowerCase());
    const only = modelled.length ? ` (of ${live.name} it answers ${modelled.join(', ')} only)` : '';
    if (known) return fail(NOT_MODELLED, `${live.name}/${known} exists on the live service; this emulator does not model it${only}, so nothing was done. ${WHERE}.`);
    if (live.complete || operation === '') return noMethod(live.name, live.operations);
    return fail(
      NOT_MODELLED,
      `Module ${live.name} exists on the live service; this emulator does not model ${live.name}/${operation}${only}, so nothing was done (check its spelling in the documentation). ${WHERE}.`,
    );
  }
  if (modelled.length) return noMethod(modelled[0].split('/')[0], modelled.map((n) => n.split('/')[1]).sort());
  return fail(4, `Module ${moduleName} not found. Check the spelling and the documentation: this emulator answers ${answered(names)}; ${WHERE}.`);
}
