// The config file: profiles with apiKey, baseUrl and defaults, kept in
// one JSON file (mode 0600, directory 0700). Reading is a plain file read on
// every command; writing goes through `conf` (atomic writes), loaded only by
// `smslink config` commands.

import { mkdirSync, readFileSync, statSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import envPaths from 'env-paths';
import { ConfigError } from '../client/errors.js';

export const SETTING_KEYS = ['apiKey', 'baseUrl', 'output', 'timeout', 'sender', 'retries'] as const;
export type SettingKey = (typeof SETTING_KEYS)[number];

export type ProfileData = Partial<Record<SettingKey, string>>;

export interface ConfigFile {
  currentProfile?: string;
  profiles?: Record<string, ProfileData>;
}

export type Env = Record<string, string | undefined>;

const CONFIG_FILE = 'config.json';

/** The config directory: SMSLINK_CONFIG_DIR, else the platform's per-user config dir. */
export function configDir(env: Env): string {
  return env.SMSLINK_CONFIG_DIR || envPaths('smslink', { suffix: '' }).config;
}

export function configPath(env: Env): string {
  return join(configDir(env), CONFIG_FILE);
}

/** Refuses a config file that group or others can read: it holds the API key. */
function assertPrivate(path: string): void {
  if (process.platform === 'win32') return;
  const mode = statSync(path).mode & 0o777;
  if (mode & 0o077) {
    throw new ConfigError(
      `config file ${path} can be read by other users (mode ${mode.toString(8).padStart(4, '0')}); it holds your API key.\n` +
        `Fix it with: chmod 600 '${path}'`,
    );
  }
}

/** Reads the config file; an absent file is an empty one. */
export function readConfigFile(env: Env): ConfigFile {
  const path = configPath(env);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new ConfigError(`cannot read config file ${path}: ${(err as Error).message}`);
  }
  assertPrivate(path);
  try {
    const data = JSON.parse(text) as ConfigFile;
    return data && typeof data === 'object' ? data : {};
  } catch {
    throw new ConfigError(`config file ${path} is not valid JSON; fix or delete it`);
  }
}

export interface WritableConfigFile {
  path: string;
  get<K extends keyof ConfigFile>(key: K): ConfigFile[K];
  set<K extends keyof ConfigFile>(key: K, value: ConfigFile[K]): void;
}

/** Opens the config file for writing (conf: atomic writes, mode 0600, directory 0700). */
export async function openConfigFile(env: Env): Promise<WritableConfigFile> {
  const dir = configDir(env);
  // A directory smslink creates is private; one that exists already is left as its owner made it.
  const created = mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (created && process.platform !== 'win32') chmodSync(dir, 0o700);
  const path = configPath(env);
  try {
    assertPrivate(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const { default: Conf } = await import('conf');
  const conf = new Conf<ConfigFile>({
    cwd: dir,
    configName: CONFIG_FILE.replace(/\.json$/, ''),
    projectName: 'smslink',
    projectSuffix: '',
    configFileMode: 0o600,
    clearInvalidConfig: false,
    watch: false,
  });
  return {
    path: conf.path,
    get: (key) => conf.get(key),
    set: (key, value) => (value === undefined ? conf.delete(key) : conf.set(key, value)),
  };
}

/** Writes `values` into one profile, keeping its other settings; returns the file's path. */
export async function writeProfile(env: Env, profile: string, values: ProfileData): Promise<string> {
  const file = await openConfigFile(env);
  const profiles = { ...(file.get('profiles') ?? {}) };
  profiles[profile] = { ...(profiles[profile] ?? {}), ...values };
  file.set('profiles', profiles);
  return file.path;
}
