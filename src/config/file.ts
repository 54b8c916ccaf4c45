// The config file: profiles with apiKey, baseUrl and defaults, kept in
// one JSON file (mode 0600, directory 0700). Reading is a plain file read on
// every command; a change is a read-modify-write under a lock shared by all
// smslink processes (proper-lockfile), written through `conf` (atomic
// writes); both are loaded only by the commands that save something.

import { join } from 'node:path';
import { configDir, type Env } from './paths.js';

export type { Env };
import { ConfigError } from '../client/errors.js';
import { nestedDeeperThan } from '../json-depth.js';
import { fileProblem } from '../output/words.js';
import { checkPrivateFile, PrivateFileError, privateDir, readPrivateFile } from '../private-files.js';

export const SETTING_KEYS = ['apiKey', 'baseUrl', 'output', 'timeout', 'sender', 'retries'] as const;
export type SettingKey = (typeof SETTING_KEYS)[number];

export type ProfileData = Partial<Record<SettingKey, string>>;

export interface ConfigFile {
  currentProfile?: string;
  profiles?: Record<string, ProfileData>;
}

const CONFIG_FILE = 'config.json';

export function configPath(env: Env): string {
  return join(configDir(env), CONFIG_FILE);
}

/**
 * Reads the config file; an absent file is an empty one. A link, another
 * user's file, or one others may write or read is refused: it holds the API
 * key and says where to send it.
 */
export function readConfigFile(env: Env): ConfigFile {
  const path = configPath(env);
  let text: string | undefined;
  try {
    text = readPrivateFile(path, { secret: 'your API key' });
  } catch (err) {
    if (err instanceof PrivateFileError) throw err;
    throw new ConfigError(fileProblem('config file', path, err));
  }
  if (text === undefined) return {};
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new ConfigError(`config file ${path} is not valid JSON; fix or delete it`);
  }
  const problem = shapeProblem(data);
  // Refused, never taken as empty: the next save would overwrite what the file holds.
  if (problem) throw new ConfigError(`config file ${path} ${problem}; smslink leaves it as it is: fix or delete it`);
  return data as ConfigFile;
}

/**
 * The file is a JSON object of profiles, a few levels deep: this many levels
 * is far more than it ever holds, and far fewer than would overflow the
 * stack of JSON.stringify when the file is saved again.
 */
const MAX_DEPTH = 16;

/** What is wrong with the shape of a parsed config file, if anything. */
function shapeProblem(data: unknown): string | undefined {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return `is not a JSON object (it holds ${data === null ? 'null' : Array.isArray(data) ? 'an array' : `a ${typeof data}`})`;
  if (nestedDeeperThan(data, MAX_DEPTH)) return `is nested more than ${MAX_DEPTH} levels deep, which no smslink config is`;
  return undefined;
}

/** How long a save waits for another smslink process's save to finish. */
const LOCK_WAIT_MS = 10_000;

/**
 * Changes the config file: `change` gets what the file holds now and alters
 * it; the result is written atomically (conf: mode 0600, directory 0700).
 * The read, the change and the write happen under a lock, so two smslink
 * processes saving at once both keep their values. Returns the file's path.
 */
export async function updateConfigFile(env: Env, change: (data: ConfigFile) => void): Promise<string> {
  const dir = configDir(env);
  // conf writes by the path: through a link, and giving the new file the old one's owner (atomically's chown).
  // In a directory of the user's alone, over a file of the user's alone, neither can happen.
  privateDir(dir);
  const path = configPath(env);
  checkPrivateFile(path);
  // Loaded before the lock is taken, so that what happens under it is synchronous and short.
  const [{ default: Conf }, { lock }] = await Promise.all([import('conf'), import('proper-lockfile')]);
  let release: () => Promise<void>;
  try {
    release = await lock(path, {
      realpath: false, // the file may not exist yet
      lockfilePath: `${path}.lock`,
      // A lock left by a process that died is taken over once it is this old (it is refreshed while held).
      stale: 5_000,
      retries: { retries: 1_000, minTimeout: 5, maxTimeout: 100, randomize: true, maxRetryTime: LOCK_WAIT_MS },
      // What is done under the lock is synchronous: no refresh can be missed while it runs.
      onCompromised: () => {},
    });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ELOCKED') throw new ConfigError(`cannot lock config file ${path}: ${(err as Error).message}; nothing was saved`);
    throw new ConfigError(
      `config file ${path} is being saved by another smslink process, and it was still locked after ${LOCK_WAIT_MS / 1000} s; nothing was saved. ` +
        `Try again; if no other smslink is running, remove ${path}.lock`,
    );
  }
  try {
    const data = structuredClone(readConfigFile(env));
    change(data);
    const conf = new Conf<ConfigFile>({
      cwd: dir,
      configName: CONFIG_FILE.replace(/\.json$/, ''),
      projectName: 'smslink',
      projectSuffix: '',
      configFileMode: 0o600,
      clearInvalidConfig: false,
      watch: false,
    });
    conf.store = data;
    return conf.path;
  } finally {
    await release();
  }
}

/**
 * What a new profile may be named: shell completion offers the names, and a
 * name that is only these characters is never read by a shell as code
 * (`$(...)`) or as two words. A profile saved before keeps its name.
 */
export const PROFILE_NAME = /^[A-Za-z0-9._-]+$/;

/** Changes one profile's settings (`change` gets a copy to alter), keeping the rest of the file; returns its path. */
export function updateProfile(env: Env, profile: string, change: (data: ProfileData) => void): Promise<string> {
  return updateConfigFile(env, (file) => {
    if (!file.profiles?.[profile] && !PROFILE_NAME.test(profile)) {
      throw new ConfigError(`profile "${profile}": a new profile's name is letters, digits, ".", "_" and "-" only; nothing was saved`, 'usage');
    }
    const data = { ...(file.profiles?.[profile] ?? {}) };
    change(data);
    file.profiles = { ...file.profiles, [profile]: data };
  });
}
