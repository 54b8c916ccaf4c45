// The exit codes a run ends with, each with its meaning (design rule 5), and
// the errors that end a run with one of them. Both src/cli and src/bulk
// raise these; src/cli/exit.ts maps every error to its code and message, and
// `smslink --help` prints this table, as README's "Exit codes" does.

/** Every exit code: its name in the code, its number, and its meaning as the user reads it. */
const EXIT_CODES = {
  OK: { code: 0, meaning: 'success' },
  API: { code: 1, meaning: 'the service answered with an error code' },
  // Also a confirmation answered no, as gh's exit code for a cancelled prompt.
  USAGE: { code: 2, meaning: 'usage or invalid input, or a confirmation answered no; nothing was sent' },
  TRANSPORT: { code: 3, meaning: 'network or transport failure (refused, timeout, HTTP 5xx, not the envelope), or a wait that ran out of time' },
  // Also a file of smslink's (config, journal, sandbox, mirror) that is not the user's alone: src/private-files.ts.
  CONFIG: { code: 4, meaning: 'authentication or configuration (no key or base URL; codes 8, 9, 13, 14; a file of smslink\'s that is not yours alone)' },
  PARTIAL: { code: 5, meaning: 'partly done (some ids or rows failed)' },
  NOT_FOUND: { code: 6, meaning: 'not found (code 2), or a setting `config get` finds set nowhere' },
  UNDELIVERED: { code: 7, meaning: 'a waited message ended undelivered' },
  FUNDS: { code: 8, meaning: 'not enough money: the balance is below --min, or a bulk send would cost more than --max-cost; nothing was sent' },
  INTERRUPTED: { code: 130, meaning: 'interrupted (Ctrl-C or SIGTERM, at a prompt or while reading stdin too; nothing is saved or deleted)' },
  // As Unix tools report SIGPIPE (128 + 13). A command that only prints what it read ends 0 instead: it did its job.
  OUTPUT_CLOSED: { code: 141, meaning: 'a bulk run stopped because its output was closed (a pipe to head); rerun it to send the rows left' },
} as const;

type ExitName = keyof typeof EXIT_CODES;

/** The exit codes by name: `EXIT.USAGE` is 2. */
export const EXIT = Object.fromEntries(Object.entries(EXIT_CODES).map(([name, { code }]) => [name, code])) as {
  readonly [N in ExitName]: (typeof EXIT_CODES)[N]['code'];
};

/** Each exit code with its meaning, in order. */
export const EXIT_MEANINGS: ReadonlyArray<{ code: number; meaning: string }> = Object.values(EXIT_CODES);

/**
 * The exit code an error carries. A key of the global symbol registry, not
 * `instanceof`: the emulator's and the mirror's bundles have copies of this
 * file, whose classes are others than the CLI's (scripts/bundle.mjs).
 */
const EXIT_CODE = Symbol.for('smslink.exitCode');

/** The exit code an error of this file's classes carries, whichever copy made it. */
export function exitCodeOf(err: unknown): number | undefined {
  const code = (err as { [EXIT_CODE]?: unknown } | null | undefined)?.[EXIT_CODE];
  return typeof code === 'number' ? code : undefined;
}

/** A problem with how the command was called; nothing was sent. */
export class UsageError extends Error {
  override name = 'UsageError';
  readonly [EXIT_CODE]: number = EXIT.USAGE;
}

/** The command did part of its work; the message says what was left. */
export class PartialError extends Error {
  override name = 'PartialError';
  readonly [EXIT_CODE]: number = EXIT.PARTIAL;
}

/** An error that carries its own exit code (waits, interrupts). */
export class ExitError extends Error {
  override name = 'ExitError';
  readonly [EXIT_CODE]: number;
  constructor(
    message: string,
    readonly code: number,
  ) {
    super(message);
    this[EXIT_CODE] = code;
  }
}

/** Ctrl-C or SIGTERM while a command read its stdin (ids, a text, a key, a bulk file): said one way wherever it is read. */
export function stdinInterrupted(): ExitError {
  return new ExitError('interrupted while reading stdin; nothing was done', EXIT.INTERRUPTED);
}
