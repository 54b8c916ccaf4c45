// Everything a command needs for one run: the streams (with the API key
// scrubbed from anything written), resolved settings, a handle on the run's
// client (made by connect.ts), and the output view. Heavy modules load on demand.

import type { SmsLinkClient } from '../../client/client.js';
import type { ClientChoice, ConnectHost } from './connect.js';
import type { OperationSpec } from '../../catalog/types.js';
import { fieldNamed, fieldNames, rowFields } from '../../catalog/columns.js';
import { PROFILE_NAME, readConfigFile, type ConfigFile } from '../../config/file.js';
import { OUTPUT_FORMATS, resolveProfile, resolveSettings, type OutputFormat, type ResolvedSettings } from '../../config/resolve.js';
import { painter, useColor, type Paint } from '../../output/color.js';
import type { OutStream, View } from '../../output/format.js';
import { UsageError } from '../../exit-codes.js';
import { invalidValue, noSuchProfile, oneOf, unknownName } from '../../output/words.js';
import { redact, registerSecret } from '../../secrets.js';
import { pagerCommand, runPager, screenRows } from './pager.js';
import { PageBuffer, ScrubbedStream } from './streams.js';
import { escapeControls, fitLines } from '../../output/text.js';
import type { CliIO, GlobalOptions } from './io.js';
import { checkJq, JqStream } from './jq.js';

const SWITCH_ON = ['1', 'true', 'yes', 'on'];
const SWITCH_OFF = ['', '0', 'false', 'no', 'off'];

/** SMSLINK_SANDBOX as a switch; a value it does not know is refused: read as off, a typo would send to the real service. */
function sandboxFromEnv(value: string | undefined): boolean {
  if (value === undefined) return false;
  const v = value.trim().toLowerCase();
  if (SWITCH_ON.includes(v)) return true;
  if (SWITCH_OFF.includes(v)) return false;
  throw new UsageError(invalidValue('SMSLINK_SANDBOX', value, `must be ${SWITCH_ON.join(', ')} (the local emulator) or ${SWITCH_OFF.slice(1).join(', ')}`));
}

export class RunContext {
  #stdout: OutStream;
  /** --jq: what the command prints goes through jq (useJq()). */
  #jq: JqStream | undefined;
  #stderr: OutStream | undefined;
  /** What a paged command has written so far (see page()). */
  #paged: PageBuffer | undefined;
  #settings: ResolvedSettings | undefined;
  #store: ConfigFile | undefined;
  #client: Promise<SmsLinkClient> | undefined;
  /** A caller asked that Ctrl-C let the requests in flight finish (client({ interruptible: false })). */
  #keepInFlight = false;
  #paint: Paint | undefined;
  #cleanups: Array<() => Promise<void>> = [];
  /** Requests retried so far in this run. */
  retried = 0;
  /** The command being run, as typed (`link get`): errors name it. */
  command: string | undefined;
  /** How to find out whether a send whose answer was lost went out, as the user can type it: an error with an unknown outcome says it. */
  outcomeCheck: string | undefined;

  constructor(
    readonly io: CliIO,
    readonly globals: GlobalOptions,
    /** A base URL and key to use instead of the settings (`login` checks them before saving them). */
    readonly credentials?: { baseUrl: string; apiKey: string },
  ) {
    // Keys given on the command line or in the environment are secrets from the start.
    // Also as used: without the line break or spaces around it that settings drop (resolve.ts).
    for (const key of [...(globals.apiKeys ?? []), credentials?.apiKey, io.env.SMSLINK_API_KEY]) {
      registerSecret(key);
      registerSecret(key?.trim());
    }
    this.#stdout = new ScrubbedStream(io.stdout);
  }

  /** Made when first written to or asked about: a command that says nothing on stderr never sets up its stream (a pipe's loads node:net). */
  get stderr(): OutStream {
    return (this.#stderr ??= new ScrubbedStream(this.io.stderr));
  }

  get stdout(): OutStream {
    return this.#paged ?? this.#stdout;
  }

  /**
   * Output of this command is for reading: on a terminal, it is collected and
   * shown through the pager when it is longer than the screen. Notes written
   * meanwhile go with it, in order (a list's footer after its table).
   */
  page(): void {
    const rows = this.io.stdout.rows;
    if (this.#paged || this.#jq || !this.io.stdout.isTTY || !rows || !pagerCommand(this.env, this.globals.pager !== false)) return;
    this.#paged = new PageBuffer(this.#stdout);
  }

  /**
   * --jq: checks the expression (a usage error before anything is sent), then
   * passes what the command prints through jq (jq.ts; jq-wasm loads with the first filter).
   */
  async useJq(expr: string): Promise<void> {
    if (this.globals.quiet) throw new UsageError('--jq filters JSON output; it cannot be combined with -q');
    await checkJq(expr);
    this.#jq = new JqStream(this.#stdout, expr);
    this.#stdout = this.#jq;
  }

  /** Writes what is held for the pager or --jq. */
  async flushOutput(): Promise<void> {
    await this.#flushPaged();
    await this.#jq?.end();
  }

  /** Shows what page() collected: through the pager when it does not fit on the screen. */
  async #flushPaged(): Promise<void> {
    const paged = this.#paged;
    if (!paged) return;
    this.#paged = undefined;
    // Scrubbed once, here: it goes to the pager or to the terminal as it is (page() is never used with --jq).
    const text = redact(paged.text);
    const command = pagerCommand(this.env, true)!;
    const rows = this.io.stdout.rows ?? Infinity;
    if (screenRows(text, this.io.stdout.columns || 80) >= rows) {
      this.io.onPager?.(true);
      try {
        if (await runPager(command, text, this.env)) return;
      } finally {
        this.io.onPager?.(false);
      }
    }
    this.io.stdout.write(text);
  }

  get env() {
    return this.io.env;
  }

  now(): Date {
    return this.io.now?.() ?? new Date();
  }

  /** The config file's profiles, read once per run (their keys are scrubbed from output from then on). */
  store(): ConfigFile {
    if (!this.#store) {
      this.#store = readConfigFile(this.io.env);
      for (const profile of Object.values(this.#store.profiles ?? {})) registerSecret(profile.apiKey);
    }
    return this.#store;
  }

  settings(): ResolvedSettings {
    if (!this.#settings) {
      const g = this.globals;
      if ((g.apiKeys?.length ?? 0) > 1) throw new UsageError('--api-key was given more than once; give one key');
      this.#settings = resolveSettings(
        { apiKey: g.apiKey, baseUrl: g.baseUrl, profile: g.profile, output: g.json ? 'json' : g.output, timeout: g.timeout, retries: g.retries },
        this.io.env,
        this.store(),
      );
      const profile = this.#settings.profile.value!;
      // Saved before names were limited (PROFILE_NAME): it still loads, and its owner is told to move it.
      if (!PROFILE_NAME.test(profile) && this.store().profiles?.[profile]) {
        this.note(
          `warning: profile "${escapeControls(profile)}" has a name new profiles cannot have (letters, digits, ".", "_" and "-" only); ` +
            'it still works: save its settings under such a name (`smslink --profile <name> login`) and remove it from the config file.',
        );
      }
      // A base URL taken without its /service is said once per run, where it is used (not by the sandbox, nor by login's check of what it was given).
      const note = this.#settings.baseUrl.note;
      if (note && !this.sandbox && !this.credentials) this.note(note);
    }
    return this.#settings;
  }

  /** Why the profile named by --profile or SMSLINK_PROFILE cannot be used (the config file has none of that name); undefined when it can. */
  missingProfile(): string | undefined {
    const { profile } = this.settings();
    const profiles = Object.keys(this.store().profiles ?? {});
    return profile.source === 'default' || profiles.includes(profile.value!) ? undefined : noSuchProfile(profile.value!, profile.origin, profiles);
  }

  /** The profile a command reads and writes: --profile > SMSLINK_PROFILE > `config use` > default. */
  profile(): string {
    return resolveProfile({ profile: this.globals.profile }, this.env, this.store()).value!;
  }

  get sandbox(): boolean {
    return this.sandboxOrigin !== undefined;
  }

  /** What turned the sandbox on, named as a setting's source is (`--sandbox`, `SMSLINK_SANDBOX`); undefined when it is off. */
  get sandboxOrigin(): string | undefined {
    if (this.globals.sandbox === true) return '--sandbox';
    return sandboxFromEnv(this.io.env.SMSLINK_SANDBOX) ? 'SMSLINK_SANDBOX' : undefined;
  }

  /** Writes a message for the user to stderr. */
  note(message: string): void {
    (this.#paged ?? this.stderr).write(`${this.#fit(message)}\n`);
  }

  async warn(message: string): Promise<void> {
    const paint = await painter(this.colorFor(this.io.stderr));
    // Fitted with the plain prefix, whose width counts; coloured after.
    const text = this.#fit(`warning: ${message}`).replace(/^warning: /, `${paint.yellow('warning:')} `);
    (this.#paged ?? this.stderr).write(`${text}\n`);
  }

  /**
   * A message as a terminal should show it (fitLines: broken at spaces, not
   * mid-word), in the page when paged; scrubbed of secrets first, which
   * breaking a line could otherwise split.
   */
  #fit(message: string): string {
    const width = this.#paged ? this.tableWidth() : this.io.stderr.isTTY ? this.io.stderr.columns : undefined;
    return width ? fitLines(redact(message), width) : message;
  }

  colorFor(stream: OutStream): boolean {
    return useColor({ isTTY: stream.isTTY, env: this.io.env, flag: this.globals.color !== false });
  }

  async paint(): Promise<Paint> {
    this.#paint ??= await painter(this.colorFor(this.io.stdout));
    return this.#paint;
  }

  format(): OutputFormat {
    // --json with -o was refused as the flags were parsed (otherName).
    const { output, jq } = this.globals;
    // --jq reads JSON: json unless ndjson is asked for, whatever the terminal or the profile says.
    if (jq !== undefined) {
      if (output !== undefined && output !== 'json' && output !== 'ndjson') throw new UsageError(`--jq filters JSON output; give -o json or -o ndjson, not -o ${output}`);
      return output === 'ndjson' ? 'ndjson' : 'json';
    }
    const chosen = this.settings().output.value;
    if (chosen) {
      if (!(OUTPUT_FORMATS as readonly string[]).includes(chosen)) throw new UsageError(invalidValue('--output', chosen, oneOf(OUTPUT_FORMATS), OUTPUT_FORMATS));
      return chosen as OutputFormat;
    }
    return this.io.stdout.isTTY ? 'table' : 'json';
  }

  fields(): string[] | undefined {
    const f = this.globals.fields
      ?.split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    return f?.length ? f : undefined;
  }

  /** -q with a flag that chooses another output: refused before the command does anything (run() calls this first). */
  refuseQuietConflicts(): void {
    const other = this.fields() ? '--fields' : this.globals.json ? '--json' : this.globals.output !== undefined ? '--output' : undefined;
    if (this.globals.quiet && other) throw new UsageError(`-q prints only the main value of each result; it cannot be combined with ${other}`);
  }

  /**
   * The output view of an operation's results. --fields must name fields the
   * results have (`columns` adds those a command shows beyond the catalog's):
   * commands that change something ask for their view before sending.
   */
  async view(op: Pick<OperationSpec, 'output'> & Partial<Pick<OperationSpec, 'result'>>, overrides: Partial<View> = {}): Promise<View> {
    const columns = overrides.columns ?? op.output.columns;
    let fields = this.fields();
    if (fields) {
      const known = [...new Set([...(op.result === undefined ? [] : (rowFields(op as OperationSpec) ?? [])), ...columns])];
      // A table's header names its field too (`clicks` is clickCnt).
      const named = fields.map((f) => fieldNamed(f, known));
      const unknown = fields.filter((_, i) => named[i] === undefined);
      if (unknown.length === 1) throw new UsageError(`--fields: ${unknownName('field', unknown[0], fieldNames(known))}; fields here: ${known.join(', ')}`);
      if (unknown.length) throw new UsageError(`--fields: unknown fields ${unknown.map((f) => `"${f}"`).join(', ')}; fields here: ${known.join(', ')}`);
      fields = named as string[];
    }
    return {
      format: this.format(),
      columns,
      fields,
      quiet: this.globals.quiet === true,
      primary: op.output.primary,
      kinds: op.output.kinds,
      paint: await this.paint(),
      width: this.tableWidth(),
      csvSafe: this.globals.csvSafe === true,
      onHiddenColumns: (headers) => this.note(`Not shown at this width: ${headers.join(', ')} (see --fields).`),
      ...overrides,
    };
  }

  /** Cells a table may take: the terminal's width, or COLUMNS; none when writing to a file or pipe. */
  tableWidth(): number | undefined {
    const columns = this.io.stdout.isTTY ? this.io.stdout.columns : Number(this.io.env.COLUMNS) || undefined;
    return columns && columns > 0 ? columns : undefined;
  }

  timeoutMs(): number {
    return Number(this.settings().timeout.value) * 1000;
  }

  /**
   * The run's client, made on first use (src/cli/connect.ts) with one
   * transport for every request. `interruptible: false` lets requests in
   * flight finish on Ctrl-C and drops them on a second one (bulk runs),
   * whenever it is asked: the client may have been made before, for a
   * bulk send's cost estimate, and there is one client a run;
   * `httpClient` chooses Node's HTTP client or undici (SmsLinkClientOptions)
   * for the client made by this call.
   */
  client(opts: ClientChoice = {}): Promise<SmsLinkClient> {
    if (opts.interruptible === false) this.#keepInFlight = true;
    this.#client ??= import('./connect.js').then(({ connect }) => connect(this.#connectHost(), opts));
    // A client that could not be made (no such profile, say) is not kept: the next call says why again.
    this.#client.catch(() => (this.#client = undefined));
    return this.#client;
  }

  #connectHost(): ConnectHost {
    const { globals: g, io } = this;
    return {
      env: this.env,
      settings: this.settings(),
      profiles: Object.keys(this.store().profiles ?? {}),
      flags: { dryRun: g.dryRun, proxy: g.proxy, caFile: g.caFile, allowInsecureHttp: g.allowInsecureHttp, verbose: g.verbose, showPii: g.showPii },
      sandbox: this.sandbox,
      credentials: this.credentials,
      // Read when asked: stderr is set up only by a run that uses it (see `stderr` above).
      get interactive() {
        return io.stderr.isTTY === true;
      },
      signal: this.#requestSignal(),
      now: () => this.now(),
      note: (message) => this.note(message),
      warn: (message) => this.warn(message),
      onClose: (fn) => this.onClose(fn),
      onRetry: () => (this.retried += 1),
    };
  }

  /**
   * What ends the client's requests: a second Ctrl-C (stopNow), and the first one
   * unless a caller asked that those in flight finish: asked when the signal comes,
   * not when the client was made.
   */
  #requestSignal(): AbortSignal | undefined {
    const { signal, stopNow } = this.io;
    if (!signal && !stopNow) return undefined;
    const requests = new AbortController();
    const onInterrupt = () => {
      if (!this.#keepInFlight) requests.abort(signal!.reason);
    };
    const onStop = () => requests.abort(stopNow!.reason);
    if (stopNow?.aborted) onStop();
    else stopNow?.addEventListener('abort', onStop, { once: true });
    if (signal?.aborted) onInterrupt();
    else signal?.addEventListener('abort', onInterrupt, { once: true });
    return requests.signal;
  }

  /** Runs fn when the run ends (close()), after what was registered later. */
  onClose(fn: () => Promise<void>): void {
    this.#cleanups.push(fn);
  }

  async close(): Promise<void> {
    for (const fn of this.#cleanups.reverse()) {
      try {
        await fn();
      } catch {
        // closing is best effort
      }
    }
    this.#cleanups = [];
  }
}
