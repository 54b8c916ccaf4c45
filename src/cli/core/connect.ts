// Makes the run's client from its settings: the sandbox's emulator in this
// process, or the configured service with its checks (a missing profile, a
// proxy setting that is no proxy URL, an unreadable --ca-file, the key on the
// command line), and --verbose's log of each request, personal data masked.

import { existsSync, readFileSync } from 'node:fs';
import type { RequestEvent, SmsLinkClient } from '../../client/client.js';
import { ConfigError, type SettingNames } from '../../client/errors.js';
import type { HttpClient, Send } from '../../client/send.js';
import { isHttpUrl } from '../../client/base-url.js';
import type { ResolvedSettings } from '../../config/resolve.js';
import { UsageError } from '../../exit-codes.js';
import { elapsed, fileProblem, noSuchProfile } from '../../output/words.js';
import { isKeyName } from '../../secrets.js';
import type { GlobalOptions } from './io.js';

/** What connect needs of the run (RunContext makes it): its settings and flags, and where to say things. */
export interface ConnectHost {
  env: Record<string, string | undefined>;
  settings: ResolvedSettings;
  /** The names of the config store's profiles: a profile named by flag or environment must be one. */
  profiles: readonly string[];
  flags: Pick<GlobalOptions, 'dryRun' | 'proxy' | 'caFile' | 'allowInsecureHttp' | 'verbose' | 'showPii'>;
  sandbox: boolean;
  /** A base URL and key to use instead of the settings (`login` checks them before saving them). */
  credentials?: { baseUrl: string; apiKey: string };
  /** stderr is a terminal: the warnings and notes meant for a person are shown. */
  interactive: boolean;
  /** Aborts the requests in flight. */
  signal?: AbortSignal;
  now(): Date;
  note(message: string): void;
  warn(message: string): Promise<void>;
  /** Runs fn when the run ends. */
  onClose(fn: () => Promise<void>): void;
  /** Told of every retry. */
  onRetry(): void;
}

export interface ClientChoice {
  /** false: requests in flight finish on Ctrl-C, and are dropped on a second one (bulk runs). */
  interruptible?: boolean;
  httpClient?: HttpClient;
}

/**
 * A proxy setting as it may be shown: what stands between the user name and
 * the last @ is masked. Read as text, not parsed: a setting shown is one that
 * is no proxy URL, often no URL at all (`user:secret@proxy:3128`, a port that
 * is no number), where a parser finds no password to hide.
 */
function withoutCredentials(value: string): string {
  const at = value.lastIndexOf('@');
  if (at < 0) return value;
  const slashes = value.indexOf('//');
  const start = slashes >= 0 && slashes < at ? slashes + 2 : 0;
  const colon = value.indexOf(':', start);
  if (colon < 0 || colon > at) return value;
  return `${value.slice(0, colon)}:***${value.slice(at)}`;
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

/** The client's errors point to the flags a person passes, not to the library's options. */
const FLAG_NAMES: SettingNames = { timeoutMs: '--timeout', allowInsecureHttp: '--allow-insecure-http', ca: '--ca-file', proxy: '--proxy' };

const maskPhone = (v: string) => (v.length > 4 ? `${'*'.repeat(v.length - 4)}${v.slice(-4)}` : v);

function shorten(v: string): string {
  const chars = [...v];
  return chars.length > 12 ? `${chars.slice(0, 8).join('')}… (${chars.length} chars)` : v;
}

const PHONE_FIELDS = new Set(['recipient', 'criteria[to]']);
const TEXT_FIELDS = new Set(['text', 'criteria[text]']);

/** A decoded field as --verbose shows it: a key never (`smslink api apikey=...`); phone numbers and texts masked, unless --show-pii. */
function displayField(host: ConnectHost, name: string, value: string): string {
  if (isKeyName(name)) return '***';
  if (host.flags.showPii) return value;
  if (PHONE_FIELDS.has(name)) return maskPhone(value);
  if (TEXT_FIELDS.has(name)) return shorten(value);
  return value;
}

function logRequest(host: ConnectHost, e: RequestEvent): void {
  const lines = [`> ${e.method} ${e.url}`];
  for (const [name, value] of e.fields) lines.push(`>   ${name} = ${displayField(host, name, value)}`);
  if (e.error) lines.push(`< ${e.error}`);
  else lines.push(`< HTTP ${e.status}, code ${e.code ?? '?'}, ${elapsed(e.ms ?? 0)}`);
  host.note(lines.join('\n'));
}

/** The sandbox's emulator, answering in this process: the client's requests reach it without a server or a socket. */
async function sandbox(host: ConnectHost): Promise<{ baseUrl: string; apiKey: string; send: Send }> {
  const { openEmulatorInProcess, sandboxOptions } = await import('../../emulator/index.js');
  const options = sandboxOptions(host.env);
  // Said once, when the sandbox is first made in this data directory (and with --verbose).
  const firstUse = typeof options.db === 'string' && !existsSync(options.db);
  const emu = openEmulatorInProcess(options);
  host.onClose(() => emu.close());
  if ((firstUse && host.interactive) || host.flags.verbose) {
    host.note('Using the sandbox: a local emulator, nothing reaches the real service (`smslink sandbox path` shows where it keeps its data).');
  }
  return { baseUrl: emu.url, apiKey: emu.keys[0], send: emu.send };
}

/** --ca-file, with NODE_EXTRA_CA_CERTS kept: giving TLS a CA list replaces Node's defaults, that one included. */
async function caFile(host: ConnectHost): Promise<Buffer[] | undefined> {
  const file = host.flags.caFile;
  if (!file) return undefined;
  let ca: Buffer[];
  try {
    ca = [readFileSync(file)];
  } catch (err) {
    throw new UsageError(fileProblem('--ca-file', file, err));
  }
  const extra = host.env.NODE_EXTRA_CA_CERTS;
  try {
    if (extra) ca.unshift(readFileSync(extra));
  } catch {
    // Node warns about an unreadable NODE_EXTRA_CA_CERTS itself
  }
  return ca;
}

/** The run's client (RunContext.client() keeps it); released when the run ends. */
export async function connect(host: ConnectHost, choice: ClientChoice): Promise<SmsLinkClient> {
  const { flags, settings, env } = host;
  let baseUrl = host.credentials?.baseUrl ?? settings.baseUrl.value ?? '';
  let apiKey = host.credentials?.apiKey ?? settings.apiKey.value ?? '';
  let send: Send | undefined;
  const proxyEnv = { httpProxy: env.HTTP_PROXY ?? env.http_proxy, httpsProxy: env.HTTPS_PROXY ?? env.https_proxy, noProxy: env.NO_PROXY ?? env.no_proxy };
  if (host.sandbox) {
    ({ baseUrl, apiKey, send } = await sandbox(host));
  } else {
    if (!host.credentials) {
      if (settings.apiKey.source === 'flag' && host.interactive) {
        await host.warn('--api-key is visible to other users in the process list; prefer SMSLINK_API_KEY or `smslink config set api-key -`.');
      }
      if (!flags.dryRun && settings.profile.source !== 'default' && !host.profiles.includes(settings.profile.value!)) {
        throw new ConfigError(noSuchProfile(settings.profile.value!, settings.profile.origin, host.profiles));
      }
      // A dry run shows the request even before a key is configured.
      if (flags.dryRun && !apiKey) apiKey = 'YOUR_API_KEY';
    }
    checkProxy(flags.proxy, '--proxy', 'usage');
    checkProxy(proxyEnv.httpProxy, 'HTTP_PROXY', 'config');
    checkProxy(proxyEnv.httpsProxy, 'HTTPS_PROXY', 'config');
  }
  const ca = await caFile(host);
  const { SmsLinkClient } = await import('../../client/client.js');
  const retries = Number(settings.retries.value);
  const client = new SmsLinkClient({
    baseUrl,
    apiKey,
    timeoutMs: Number(settings.timeout.value) * 1000,
    retries,
    allowInsecureHttp: flags.allowInsecureHttp,
    proxy: flags.proxy,
    proxyEnv,
    ca,
    send,
    httpClient: choice.httpClient,
    now: () => host.now(),
    signal: host.signal,
    settingNames: FLAG_NAMES,
    onRequest: flags.verbose ? (e) => logRequest(host, e) : undefined,
    onRetry: (r) => {
      host.onRetry();
      if (flags.verbose) host.note(`~ ${r.operation}: ${r.reason}; retry ${r.attempt - 1} of ${retries} in ${elapsed(r.delayMs)}`);
    },
  });
  // The run ends with its requests: nothing needs a keep-alive connection closed gracefully.
  host.onClose(() => client.release());
  return client;
}
