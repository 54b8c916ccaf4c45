// Where smslink keeps its files: the config directory (profiles and keys),
// the data directory (the sandbox, mirrors, what it knows of each account)
// and the cache directory (compiled code). Each can be moved by a variable.

import envPaths from 'env-paths';

export type Env = Record<string, string | undefined>;

/** $SMSLINK_CONFIG_DIR, else the platform's per-user config directory (Linux: ~/.config/smslink). */
export function configDir(env: Env): string {
  return env.SMSLINK_CONFIG_DIR || envPaths('smslink', { suffix: '' }).config;
}

/** $SMSLINK_DATA_DIR, else the platform's per-user data directory (Linux: ~/.local/share/smslink). */
export function dataDir(env: Env): string {
  return env.SMSLINK_DATA_DIR || envPaths('smslink', { suffix: '' }).data;
}
