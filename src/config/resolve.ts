// Settings precedence in one place: flag > environment > profile in the
// config file > built-in default. Every value comes back with where it came
// from, so `config list` and error messages can tell the user (design rule 4).

import { ConfigError } from '../client/errors.js';
import { invalidValue, oneOf } from '../output/words.js';
import { looksLikeKey, maskKey } from '../secrets.js';
import { isHttpUrl, withoutServicePath } from '../client/base-url.js';
import { SETTING_KEYS, type Env, type SettingKey, type ConfigFile } from './file.js';

export type Source = 'flag' | 'env' | 'profile' | 'default';

export interface Resolved {
  value: string | undefined;
  source: Source;
  /** Human description: `--api-key`, `SMSLINK_API_KEY`, `profile "prod"`, `default`. */
  origin: string;
  /** Said to the user when the value in force is not the one given (a base URL taken without its /service). */
  note?: string;
}

/** Every setting with the value in force and where it came from. */
export type ResolvedSettings = Record<SettingKey | 'profile', Resolved>;


/**
 * Why a value cannot be the base URL, or null. Credentials in it would be
 * shown wherever the URL is (status, --dry-run, config list), and a query
 * or fragment would be dropped from every request without a word.
 */
export function baseUrlRule(value: string): string | null {
  if (!isHttpUrl(value)) return 'must be an http(s):// URL such as https://api.example.com';
  const url = new URL(value);
  if (url.username || url.password) return 'must not hold a user name or password, which would be shown wherever the URL is (the API key is a setting of its own)';
  if (url.search || url.hash) return 'must not hold a query (?...) or a fragment (#...): each request writes its own';
  return null;
}


/**
 * What is said when a base URL is taken without its /service, wherever it
 * is given (`config set`, `login`, --base-url, SMSLINK_BASE_URL, a profile).
 */
export function servicePathNote(name: string, typed: string, used: string, done: 'using' | 'saved'): string {
  return `${name} "${typed}" ends in /service, which smslink adds to every request itself: ${done} ${used}`;
}

export const OUTPUT_FORMATS = ['table', 'json', 'ndjson', 'csv', 'tsv'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** How a setting is given on every command line; `smslink --help` lists these flags. */
export interface GlobalFlag {
  short?: string;
  /** The value's name in help, as in `--base-url <url>`. */
  value: string;
  help: string;
  /** The section of `smslink --help` that lists it. */
  group: 'Output flags:' | 'Connection flags:';
}

interface SettingSpec {
  /** The flag that gives it, as `config list` names where a value came from. */
  flag: string;
  /** The program-wide flag; sender has none (its --from belongs to message send). */
  global?: GlobalFlag;
  env: string;
  /** The name users type in `config set <name>`. */
  name: string;
  default?: string;
  secret?: boolean;
  /** The rule a value must keep, or null when it does. */
  check?: (value: string) => string | null;
  /** A closed set of values: a near miss is offered (`jsn`: did you mean json?). */
  choices?: readonly string[];
  /** A value as an error may quote it (a password in a URL hidden); as it is when absent. */
  quoted?: (value: string) => string;
}

/** A URL as an error may quote it: a user name and password in it become ***. */
export function withoutCredentials(value: string): string {
  // The key given as the base URL (the two the wrong way round) is the key all the same.
  if (looksLikeKey(value)) return maskKey(value.trim());
  return value.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i, '$1***@');
}

/** Why a value cannot be the API key, or null: a URL is the base URL given in its place. */
function apiKeyRule(value: string): string | null {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? 'is a URL, not a key: are the base URL and the key given the wrong way round?' : null;
}

export const SETTINGS: Record<SettingKey, SettingSpec> = {
  apiKey: {
    flag: '--api-key',
    global: { value: '<key>', help: 'API key (prefer `smslink config set api-key` or SMSLINK_API_KEY)', group: 'Connection flags:' },
    env: 'SMSLINK_API_KEY',
    name: 'api-key',
    secret: true,
    check: apiKeyRule,
    quoted: maskKey,
  },
  baseUrl: {
    flag: '--base-url',
    global: { value: '<url>', help: 'base URL of the service, e.g. https://api.example.com', group: 'Connection flags:' },
    env: 'SMSLINK_BASE_URL',
    name: 'base-url',
    check: baseUrlRule,
    quoted: withoutCredentials,
  },
  output: {
    flag: '--output',
    global: { short: '-o', value: '<format>', help: 'table (on a terminal), json, ndjson, csv or tsv', group: 'Output flags:' },
    env: 'SMSLINK_OUTPUT',
    name: 'output',
    check: (v) => ((OUTPUT_FORMATS as readonly string[]).includes(v) ? null : oneOf(OUTPUT_FORMATS)),
    choices: OUTPUT_FORMATS,
  },
  timeout: {
    flag: '--timeout',
    global: { value: '<seconds>', help: 'time limit per request, connection included', group: 'Connection flags:' },
    env: 'SMSLINK_TIMEOUT',
    name: 'timeout',
    default: '30',
    // At least a millisecond: the client's timer counts whole ones (timeoutMs). A duration with a unit
    // (`--wait --timeout 2m`, as inbox wait and serve wait take it) is most likely meant for the wait.
    check: (v) =>
      /^\d+(\.\d+)?$/.test(v) && Number(v) >= 0.001 && Number(v) <= 3600
        ? null
        : /^\d+(\.\d+)?\s*(ms|s|m|min|h)$/i.test(v)
          ? 'must be a number of seconds from 0.001 to 3600, without a unit: it limits each request (how long --wait waits is --wait-timeout)'
          : 'must be a number of seconds from 0.001 to 3600',
  },
  retries: {
    flag: '--retries',
    global: { value: '<n>', help: 'retries of requests that are safe to repeat', group: 'Connection flags:' },
    env: 'SMSLINK_RETRIES',
    name: 'retries',
    default: '3',
    check: (v) => (/^\d+$/.test(v) && Number(v) <= 10 ? null : 'must be a whole number from 0 to 10'),
  },
  sender: { flag: '--from', env: 'SMSLINK_SENDER', name: 'sender' },
};

/** The profile is chosen as a setting is (flag > environment > `config use` > default), but is no setting of a profile. */
export const PROFILE: Pick<SettingSpec, 'flag' | 'global' | 'env' | 'default'> = {
  flag: '--profile',
  global: { value: '<name>', help: 'config profile to use', group: 'Connection flags:' },
  env: 'SMSLINK_PROFILE',
};

export function settingByName(name: string): SettingKey | undefined {
  return SETTING_KEYS.find((k) => SETTINGS[k].name === name || k === name);
}

export const DEFAULT_PROFILE = 'default';

/** Flags as parsed from the command line (camelCase setting keys plus profile). */
export type SettingFlags = Partial<Record<SettingKey | 'profile', string | undefined>>;

export function resolveProfile(flags: SettingFlags, env: Env, file: ConfigFile): Resolved {
  if (flags.profile) return { value: flags.profile, source: 'flag', origin: PROFILE.flag };
  if (env[PROFILE.env]) return { value: env[PROFILE.env], source: 'env', origin: PROFILE.env };
  if (file.currentProfile) return { value: file.currentProfile, source: 'profile', origin: 'config use' };
  return { value: DEFAULT_PROFILE, source: 'default', origin: 'default' };
}

/** Resolves every setting and says where each value came from. Invalid values are errors naming their source. */
export function resolveSettings(flags: SettingFlags, env: Env, file: ConfigFile): ResolvedSettings {
  const profile = resolveProfile(flags, env, file);
  const stored = file.profiles?.[profile.value!] ?? {};
  const out = { profile } as ResolvedSettings;
  for (const key of SETTING_KEYS) {
    const spec = SETTINGS[key];
    let r: Resolved;
    if (flags[key] !== undefined && flags[key] !== '') r = { value: flags[key], source: 'flag', origin: spec.flag };
    else if (env[spec.env]) r = { value: env[spec.env], source: 'env', origin: spec.env };
    else if (stored[key] !== undefined && stored[key] !== '') r = { value: stored[key], source: 'profile', origin: `profile "${profile.value}"` };
    else r = { value: spec.default, source: 'default', origin: 'default' };
    // A flag is named as typed; another source with where it came from.
    const name = r.source === 'flag' ? spec.flag : `${spec.name} from ${r.origin}`;
    // A line break or spaces around a key (a CI secret pasted with one) are no part of it, as
    // `config set api-key -` drops them from stdin; what is inside is the service's to judge.
    if (spec.secret && r.value !== undefined) r = { ...r, value: r.value.trim() || undefined };
    const problem = r.value !== undefined ? spec.check?.(r.value) : null;
    if (problem) {
      throw new ConfigError(invalidValue(name, spec.quoted?.(r.value!) ?? r.value!, problem, spec.choices), r.source === 'flag' ? 'usage' : 'config');
    }
    const host = key === 'baseUrl' && r.value !== undefined ? withoutServicePath(r.value) : undefined;
    if (host) r = { ...r, value: host, note: servicePathNote(r.source === 'flag' ? spec.flag : `${spec.name} from ${r.origin}`, r.value!, host, 'using') };
    out[key] = r;
  }
  return out;
}

export { maskKey } from '../secrets.js';
