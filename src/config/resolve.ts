// Settings precedence in one place: flag > environment > profile in the
// config file > built-in default. Every value comes back with where it came
// from, so `config list` and error messages can tell the user (design rule 4).

import { ConfigError } from '../client/errors.js';
import { SETTING_KEYS, type Env, type SettingKey, type ConfigFile } from './file.js';

export type Source = 'flag' | 'env' | 'profile' | 'default';

export interface Resolved {
  value: string | undefined;
  source: Source;
  /** Human description: `--api-key`, `SMSLINK_API_KEY`, `profile "prod"`, `default`. */
  origin: string;
}

/** Every setting with the value in force and where it came from. */
export type ResolvedSettings = Record<SettingKey | 'profile', Resolved>;

/** An absolute http:// or https:// URL (base URLs, proxies). */
export function isHttpUrl(value: string): boolean {
  try {
    const { protocol } = new URL(value);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

export const OUTPUT_FORMATS = ['table', 'json', 'ndjson', 'csv', 'tsv'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

interface SettingSpec {
  flag: string;
  env: string;
  /** The name users type in `config set <name>`. */
  name: string;
  default?: string;
  secret?: boolean;
  describe: string;
  check?: (value: string) => string | null;
}

export const SETTINGS: Record<SettingKey, SettingSpec> = {
  apiKey: { flag: '--api-key', env: 'SMSLINK_API_KEY', name: 'api-key', secret: true, describe: 'API key of your account' },
  baseUrl: {
    flag: '--base-url',
    env: 'SMSLINK_BASE_URL',
    name: 'base-url',
    describe: 'base URL of your regional API host, e.g. https://api.example.com',
    check: (v) => (isHttpUrl(v) ? null : 'must be an http(s):// URL such as https://api.example.com'),
  },
  output: {
    flag: '--output',
    env: 'SMSLINK_OUTPUT',
    name: 'output',
    describe: `default output format: ${OUTPUT_FORMATS.join(', ')}`,
    check: (v) => ((OUTPUT_FORMATS as readonly string[]).includes(v) ? null : `must be one of ${OUTPUT_FORMATS.join(', ')}`),
  },
  timeout: {
    flag: '--timeout',
    env: 'SMSLINK_TIMEOUT',
    name: 'timeout',
    default: '30',
    describe: 'seconds each request may take, connection included',
    check: (v) => (/^\d+(\.\d+)?$/.test(v) && Number(v) > 0 && Number(v) <= 3600 ? null : 'must be a number of seconds, more than 0 and at most 3600'),
  },
  retries: {
    flag: '--retries',
    env: 'SMSLINK_RETRIES',
    name: 'retries',
    default: '3',
    describe: 'retries of requests that are safe to repeat',
    check: (v) => (/^\d+$/.test(v) && Number(v) <= 10 ? null : 'must be a whole number from 0 to 10'),
  },
  sender: { flag: '--from', env: 'SMSLINK_SENDER', name: 'sender', describe: 'default sender ID for message send' },
};

export function settingByName(name: string): SettingKey | undefined {
  return SETTING_KEYS.find((k) => SETTINGS[k].name === name || k === name);
}

export const DEFAULT_PROFILE = 'default';

/** Flags as parsed from the command line (camelCase setting keys plus profile). */
export type SettingFlags = Partial<Record<SettingKey | 'profile', string | undefined>>;

export function resolveProfile(flags: SettingFlags, env: Env, file: ConfigFile): Resolved {
  if (flags.profile) return { value: flags.profile, source: 'flag', origin: '--profile' };
  if (env.SMSLINK_PROFILE) return { value: env.SMSLINK_PROFILE, source: 'env', origin: 'SMSLINK_PROFILE' };
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
    const problem = r.value !== undefined ? spec.check?.(r.value) : null;
    if (problem) {
      throw new ConfigError(`${spec.name} from ${r.origin}: "${r.value}" ${problem}`, r.source === 'flag' ? 'usage' : 'config');
    }
    out[key] = r;
  }
  return out;
}

/** Shows a key as its first and last 4 characters, or as stars alone when it is shorter than 20. */
export function maskKey(key: string): string {
  // Its ends tell keys apart; a short key would be mostly shown by them.
  if (key.length < 20) return '*'.repeat(key.length);
  return `${key.slice(0, 4)}${'*'.repeat(Math.min(key.length - 8, 32))}${key.slice(-4)}`;
}
