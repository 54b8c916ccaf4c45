// Runs the CLI in-process: run(argv, io) with captured streams, a private
// config dir and no colour unless a test asks for a terminal.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { run } from '../../src/cli/run.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  env?: Record<string, string | undefined>;
  stdin?: string;
  /** Pretend stdout/stderr are terminals. */
  tty?: boolean;
  /** The pretend terminal's size (default 120 columns; rows unknown, so nothing is paged). */
  columns?: number;
  rows?: number;
  signal?: AbortSignal;
  now?: () => Date;
}

class Capture {
  text = '';
  constructor(
    readonly isTTY: boolean,
    readonly columns = 120,
    readonly rows?: number,
  ) {}
  write(chunk: string): boolean {
    this.text += chunk;
    return true;
  }
}

export function tempDir(prefix = 'smslink-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/**
 * The environment of a spawned bin: nothing of the user's (a private config
 * dir) and the suite's compile cache (global-setup.ts) instead of the user's.
 */
export function binEnv(env: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return { PATH: process.env.PATH, SMSLINK_CONFIG_DIR: tempDir(), SMSLINK_DATA_DIR: tempDir(), SMSLINK_CACHE_DIR: process.env.SMSLINK_TEST_CACHE_DIR ?? tempDir(), ...env };
}

/** Keys given to a run: through the environment or --api-key. */
function keysOf(args: string[], env: Record<string, string | undefined>): string[] {
  const keys = [env.SMSLINK_API_KEY];
  args.forEach((a, i) => {
    if (a === '--api-key') keys.push(args[i + 1]);
    if (a.startsWith('--api-key=')) keys.push(a.slice('--api-key='.length));
  });
  return keys.filter((k): k is string => typeof k === 'string' && k.length >= 8);
}

/**
 * Every CLI test doubles as a secrets test: a run whose output contains the
 * API key it was given fails, whatever the test itself checks.
 */
function assertNoLeak(args: string[], env: Record<string, string | undefined>, out: string): void {
  for (const key of keysOf(args, env)) {
    if (out.includes(key) || out.includes(encodeURIComponent(key))) {
      throw new Error(`the API key leaked into the output of: smslink ${args.join(' ')}`);
    }
  }
}

export async function runCli(args: string[], opts: RunOptions = {}): Promise<CliResult> {
  return startCli(args, opts).done;
}

/** A run under way: its output so far (for a test that waits on what is printed), and its result. */
export interface RunningCli {
  stdout: { readonly text: string };
  stderr: { readonly text: string };
  done: Promise<CliResult>;
}

/** runCli, but the output can be read while the run goes on (a --follow, say). */
export function startCli(args: string[], opts: RunOptions = {}): RunningCli {
  const stdout = new Capture(opts.tty ?? false, opts.columns, opts.rows);
  const stderr = new Capture(opts.tty ?? false, opts.columns, opts.rows);
  const stdin = Readable.from(opts.stdin !== undefined ? [Buffer.from(opts.stdin)] : []) as Readable & { isTTY?: boolean };
  stdin.isTTY = opts.stdin === undefined && (opts.tty ?? false);
  // Nothing of the user's: a run's config and data (the sandbox, mirrors, what it knows of an account) are its own unless given.
  const env = { SMSLINK_CONFIG_DIR: tempDir(), SMSLINK_DATA_DIR: tempDir(), ...opts.env };
  const done = run(args, { stdout, stderr, stdin, env, signal: opts.signal, now: opts.now }).then((code) => {
    assertNoLeak(args, env, stdout.text + stderr.text);
    return { code, stdout: stdout.text, stderr: stderr.text };
  });
  return { stdout, stderr, done };
}

/**
 * Runs a command in-process and presses Ctrl-C (aborts its signal) once
 * `after` lines are out on stdout, as a person stops a bulk run midway.
 */
export async function runInterrupted(args: string[], after: number, env: Record<string, string | undefined>): Promise<CliResult & { seen: number }> {
  const ac = new AbortController();
  let seen = 0;
  let stdout = '';
  let stderr = '';
  const out = {
    isTTY: false,
    write: (s: string) => {
      stdout += s;
      seen += s.split('\n').filter(Boolean).length;
      if (seen >= after) ac.abort();
      return true;
    },
  };
  const code = await run(args, { stdout: out, stderr: { write: (s: string) => ((stderr += s), true) }, stdin: Readable.from([]), env: { ...env, SMSLINK_CONFIG_DIR: tempDir() }, signal: ac.signal });
  return { code, stdout, stderr, seen };
}
