// The sandbox: one emulator database in the user's data directory that
// `--sandbox` commands and `smslink serve` share, so state survives between
// commands and a link made with --sandbox opens while `serve` runs. This file
// only names the place and the options; the CLI starts and stops the emulator.

import { existsSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { dataDir } from '../config/paths.js';
import { DEFAULT_URL, DEFAULTS } from './defaults.js';
import type { EmulatorOptions } from './core.js';
import { isUtcName } from './service/time-zone.js';

export const SANDBOX_KEY = 'sandbox';
export const SANDBOX_FILE = 'sandbox.db';

/** Where the sandbox database lives: $SMSLINK_DATA_DIR/sandbox.db, else the user data directory (Linux: ~/.local/share/smslink). */
export function sandboxDbPath(env: Record<string, string | undefined>): string {
  return join(dataDir(env), SANDBOX_FILE);
}

/** The user's local time zone, so deferred times typed by the user mean the same to the client and the sandbox. */
export function localTimeZone(): string {
  return plainlyUtc() ? 'UTC' : Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

/**
 * Whether this process's zone is UTC, found the way ICU finds it but without
 * loading Intl, whose first use loads ICU's zone data at every `--sandbox`
 * start (hyperfine `node -e 0` against
 * `node -e "Intl.DateTimeFormat().resolvedOptions()"` shows the cost): TZ
 * names the zone; unset, the /etc/localtime link does (a path ending in
 * zoneinfo/<zone>). Anything else (a POSIX TZ rule, a copied zone file,
 * Windows) is left to Intl.
 */
function plainlyUtc(): boolean {
  const tz = process.env.TZ;
  if (tz !== undefined) return isUtcName(tz.startsWith(':') ? tz.slice(1) : tz);
  try {
    const target = readlinkSync('/etc/localtime');
    const at = target.lastIndexOf('zoneinfo/');
    return at >= 0 && isUtcName(target.slice(at + 'zoneinfo/'.length));
  } catch {
    return false;
  }
}

/**
 * Options of the in-process sandbox emulator: the sandbox key on an
 * ephemeral loopback port, the shared database file, the local time zone,
 * and short links on the address `smslink serve` uses by default, so they
 * keep working after the command that made them has exited.
 */
export function sandboxOptions(env: Record<string, string | undefined>): EmulatorOptions {
  return {
    host: DEFAULTS.host,
    port: 0,
    db: sandboxDbPath(env),
    apiKeys: [SANDBOX_KEY],
    tz: localTimeZone(),
    shortBase: DEFAULT_URL,
  };
}

/** Empties the sandbox (schema kept, safe while `serve` runs on it). Returns its path and whether it existed. */
export async function resetSandbox(env: Record<string, string | undefined>): Promise<{ path: string; existed: boolean }> {
  const path = sandboxDbPath(env);
  if (!existsSync(path)) return { path, existed: false };
  const { Database } = await import('./store/database.js');
  const db = Database.open(path);
  try {
    db.reset();
  } finally {
    db.close();
  }
  return { path, existed: true };
}
