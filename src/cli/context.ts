// Everything a command needs for one run: the streams (with the API key
// scrubbed from anything written), resolved settings, one client with one
// keep-alive dispatcher, and the output view. Heavy modules load on demand.

import type { SmsLinkClient, RequestEvent } from '../client/client.js';
import type { DispatchTarget, HttpClient } from '../client/transport.js';
import type { OperationSpec } from '../catalog/types.js';
import { readStore, type StoreData } from '../config/store.js';
import { isHttpUrl, OUTPUT_FORMATS, resolveSettings, type OutputFormat, type Settings } from '../config/resolve.js';
import { painter, useColor, type Paint } from '../output/color.js';
import type { OutStream, View } from '../output/format.js';
import { UsageError } from './exit.js';
import { ConfigError } from '../client/errors.js';
import { redact, registerSecret } from '../secrets.js';

export interface CliIO {
  stdout: OutStream;
  stderr: OutStream;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  env: Record<string, string | undefined>;
  /** Aborted when the user presses Ctrl-C (or stdout is closed: reason 'stdout-closed'). */
  signal?: AbortSignal;
  /** Aborted on a second Ctrl-C: whatever is still in flight is given up at once (bulk runs). */
  stopNow?: AbortSignal;
  /** stdout is a pipe or a socket, whose reader may go away (`| head -1`). */
  readonly stdoutIsPipe?: boolean;
  now?: () => Date;
}

/** Options every command accepts (program-level flags). */
export interface GlobalOptions {
  apiKey?: string;
  /** Every --api-key given (serve accepts several). */
  apiKeys?: string[];
  baseUrl?: string;
  profile?: string;
  output?: string;
  json?: boolean;
  fields?: string;
  quiet?: boolean;
  verbose?: boolean;
  dryRun?: boolean;
  color?: boolean;
  timeout?: string;
  retries?: string;
  proxy?: string;
  caFile?: string;
  allowInsecureHttp?: boolean;
  showPii?: boolean;
  sandbox?: boolean;
}

/** A stream wrapper that never lets the secret through. */
class ScrubbedStream implements OutStream {
  constructor(private readonly inner: OutStream) {}
  get isTTY() {
    return this.inner.isTTY;
  }
  get columns() {
    return this.inner.columns;
  }
  write(chunk: string): unknown {
    return this.inner.write(redact(chunk));
  }
}

/** A URL as it may be shown: a password in it is masked. */
function withoutCredentials(value: string): string {
  try {
    const url = new URL(value);
    if (!url.password) return value;
    url.password = '***';
    return url.href;
  } catch {
    return value;
  }
}

/** A proxy is a scheme, a host and a port, with credentials perhaps; no path, query or fragment (undici refuses them). */
function isProxyUrl(value: string): boolean {
  if (!isHttpUrl(value)) return false;
  const { pathname, search, hash } = new URL(value);
  return (pathname === '/' || pathname === '') && !search && !hash;
}

/** A proxy setting must be an http(s) proxy URL; say which setting is wrong before anything is sent. */
function checkProxy(value: string | undefined, name: string, kind: 'usage' | 'config'): void {
  if (!value || isProxyUrl(value)) return;
  const message = `${name}: "${withoutCredentials(value)}" is not a proxy URL such as http://proxy.example.com:3128 (a scheme, a host and a port; no path)`;
  if (kind === 'usage') throw new UsageError(message);
  throw new ConfigError(message);
}

function maskPhone(v: string): string {
  return v.length > 4 ? `${'*'.repeat(v.length - 4)}${v.slice(-4)}` : v;
}

function shorten(v: string): string {
  const chars = [...v];
  return chars.length > 12 ? `${chars.slice(0, 8).join('')}… (${chars.length} chars)` : v;
}

const PHONE_FIELDS = new Set(['recipient', 'criteria[to]']);
const TEXT_FIELDS = new Set(['text', 'criteria[text]']);

export class RunContext {
  readonly stdout: OutStream;
  readonly stderr: OutStream;
  #settings: Settings | undefined;
  #store: StoreData | undefined;
  #client: SmsLinkClient | undefined;
  #paint: Paint | undefined;
  #cleanups: Array<() => Promise<void>> = [];
  #warnedKeyFlag = false;
  /** Requests retried so far in this run. */
  retried = 0;

  constructor(
    readonly io: CliIO,
    readonly globals: GlobalOptions,
  ) {
    // Keys given on the command line or in the environment are secrets from the start.
    for (const key of globals.apiKeys ?? []) registerSecret(key);
    registerSecret(io.env.SMSLINK_API_KEY);
    this.stdout = new ScrubbedStream(io.stdout);
    this.stderr = new ScrubbedStream(io.stderr);
  }

  get env() {
    return this.io.env;
  }

  now(): Date {
    return this.io.now?.() ?? new Date();
  }

  store(): StoreData {
    if (!this.#store) {
      this.#store = readStore(this.io.env);
      for (const profile of Object.values(this.#store.profiles ?? {})) registerSecret(profile.apiKey);
    }
    return this.#store;
  }

  settings(): Settings {
    if (!this.#settings) {
      const g = this.globals;
      if ((g.apiKeys?.length ?? 0) > 1) throw new UsageError('--api-key was given more than once; give one key');
      this.#settings = resolveSettings(
        { apiKey: g.apiKey, baseUrl: g.baseUrl, profile: g.profile, output: g.json ? 'json' : g.output, timeout: g.timeout, retries: g.retries },
        this.io.env,
        this.store(),
      );
    }
    return this.#settings;
  }

  get sandbox(): boolean {
    return this.globals.sandbox === true || this.io.env.SMSLINK_SANDBOX === '1' || this.io.env.SMSLINK_SANDBOX === 'true';
  }

  /** Writes a message for the user to stderr. */
  note(message: string): void {
    this.stderr.write(`${message}\n`);
  }

  async warn(message: string): Promise<void> {
    const paint = await painter(this.colorFor(this.io.stderr));
    this.stderr.write(`${paint.yellow('warning:')} ${message}\n`);
  }

  colorFor(stream: OutStream): boolean {
    return useColor({ isTTY: stream.isTTY, env: this.io.env, flag: this.globals.color !== false });
  }

  async paint(): Promise<Paint> {
    this.#paint ??= await painter(this.colorFor(this.io.stdout));
    return this.#paint;
  }

  format(): OutputFormat {
    const chosen = this.settings().output.value;
    if (chosen) {
      if (!(OUTPUT_FORMATS as readonly string[]).includes(chosen)) throw new UsageError(`--output must be one of ${OUTPUT_FORMATS.join(', ')}`);
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

  /** The output view of an operation's results. */
  async view(op: Pick<OperationSpec, 'output'>, overrides: Partial<View> = {}): Promise<View> {
    return {
      format: this.format(),
      columns: op.output.columns,
      fields: this.fields(),
      quiet: this.globals.quiet === true,
      primary: op.output.primary,
      labels: op.output.labels,
      paint: await this.paint(),
      width: this.io.stdout.columns,
      onUnknownFields: (names) => void this.warn(`--fields: no result has ${names.map((n) => `"${n}"`).join(', ')} (field names are case-sensitive, e.g. shortLink)`),
      ...overrides,
    };
  }

  timeoutMs(): number {
    return Number(this.settings().timeout.value) * 1000;
  }

  /**
   * The run's client; created once (one dispatcher for every request).
   * `interruptible: false` lets requests in flight finish on Ctrl-C, and drops them on a second one (bulk runs);
   * `httpClient` chooses Node's HTTP client or undici (SmsLinkClientOptions).
   */
  async client(opts: { interruptible?: boolean; httpClient?: HttpClient } = {}): Promise<SmsLinkClient> {
    if (this.#client) return this.#client;
    const settings = this.settings();
    let baseUrl = settings.baseUrl.value ?? '';
    let apiKey = settings.apiKey.value ?? '';
    let dispatcher: DispatchTarget | undefined;
    if (this.sandbox) {
      // The emulator answers in this process: the client's requests go through the whole client
      // (checks, retry policy, envelope) to its request handling, without a server or a socket.
      const { openEmulatorInProcess, sandboxOptions } = await import('../emulator/index.js');
      const emu = openEmulatorInProcess(sandboxOptions(this.io.env));
      this.#cleanups.push(() => emu.close());
      baseUrl = emu.url;
      apiKey = emu.keys[0];
      dispatcher = emu.dispatcher;
      if (this.io.stderr.isTTY) this.note('Using the sandbox: a local emulator, nothing reaches the real service (`smslink sandbox path` shows where it keeps its data).');
    } else {
      if (settings.apiKey.source === 'flag' && this.io.stderr.isTTY && !this.#warnedKeyFlag) {
        this.#warnedKeyFlag = true;
        await this.warn('--api-key is visible to other users in the process list; prefer SMSLINK_API_KEY or `smslink config set api-key -`.');
      }
      if (!this.globals.dryRun && settings.profile.source !== 'default' && !this.store().profiles?.[settings.profile.value!]) {
        const { ConfigError } = await import('../client/errors.js');
        throw new ConfigError(`profile "${settings.profile.value}" (from ${settings.profile.origin}) does not exist; create it with \`smslink config set --profile ${settings.profile.value} base-url https://...\``);
      }
      // A dry run shows the request even before a key is configured.
      if (this.globals.dryRun && !apiKey) apiKey = 'YOUR_API_KEY';
    }
    const proxyEnv = {
      httpProxy: this.io.env.HTTP_PROXY ?? this.io.env.http_proxy,
      httpsProxy: this.io.env.HTTPS_PROXY ?? this.io.env.https_proxy,
      noProxy: this.io.env.NO_PROXY ?? this.io.env.no_proxy,
    };
    if (!this.sandbox) {
      checkProxy(this.globals.proxy, '--proxy', 'usage');
      checkProxy(proxyEnv.httpProxy, 'HTTP_PROXY', 'config');
      checkProxy(proxyEnv.httpsProxy, 'HTTPS_PROXY', 'config');
    }
    const { SmsLinkClient } = await import('../client/client.js');
    let ca: Buffer[] | undefined;
    if (this.globals.caFile) {
      const { readFileSync } = await import('node:fs');
      try {
        ca = [readFileSync(this.globals.caFile)];
      } catch (err) {
        throw new UsageError(`--ca-file: cannot read "${this.globals.caFile}": ${(err as Error).message}`);
      }
      // Giving TLS a CA list replaces Node's defaults, NODE_EXTRA_CA_CERTS included: keep it.
      const extra = this.io.env.NODE_EXTRA_CA_CERTS;
      if (extra) {
        try {
          ca.unshift(readFileSync(extra));
        } catch {
          // Node warns about an unreadable NODE_EXTRA_CA_CERTS itself
        }
      }
    }
    this.#client = new SmsLinkClient({
      baseUrl,
      apiKey,
      timeoutMs: this.timeoutMs(),
      retries: Number(settings.retries.value),
      allowInsecureHttp: this.globals.allowInsecureHttp,
      proxy: this.globals.proxy,
      proxyEnv,
      ca,
      dispatcher,
      httpClient: opts.httpClient,
      now: () => this.now(),
      signal: opts.interruptible === false ? this.io.stopNow : this.io.signal,
      onRequest: this.globals.verbose ? (e) => this.#logRequest(e) : undefined,
      onRetry: (r) => {
        this.retried += 1;
        if (this.globals.verbose) this.note(`~ ${r.operation}: ${r.reason}; retry ${r.attempt - 1} of ${settings.retries.value} in ${r.delayMs} ms`);
      },
    });
    // The run ends with its requests: nothing needs a keep-alive connection closed gracefully.
    this.#cleanups.push(() => this.#client!.release());
    return this.#client;
  }

  /** Redacts personal data in a decoded field for display, unless --show-pii. */
  displayField(name: string, value: string): string {
    if (this.globals.showPii) return value;
    if (PHONE_FIELDS.has(name)) return maskPhone(value);
    if (TEXT_FIELDS.has(name)) return shorten(value);
    return value;
  }

  #logRequest(e: RequestEvent): void {
    const lines = [`> ${e.method} ${e.url}`];
    for (const [name, value] of e.fields) lines.push(`>   ${name} = ${this.displayField(name, value)}`);
    if (e.error) lines.push(`< ${e.error}`);
    else lines.push(`< HTTP ${e.status}, code ${e.code ?? '?'}, ${Math.round(e.ms ?? 0)} ms`);
    this.note(lines.join('\n'));
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
