// Runs the real bin in a real pseudo-terminal (test/helpers/pty-run.py), for what
// only a terminal shows: prompts without echo, confirmations, widths, pagers.
// The bin runs dist/ as built by global-setup.ts.
//
//   const r = await runInPty(['config', 'set', 'api-key'], {
//     steps: [{ waitFor: 'Paste your API key:', write: 'secret\r' }],
//   });
//   r.code; r.output (every byte the terminal showed); screenText(r.output)

import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { binEnv } from './run-cli.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(ROOT, 'bin/smslink.js');
const PTY = join(ROOT, 'test/helpers/pty-run.py');

/** Keys a person types; `\r` is Enter, as a terminal sends it. */
export const KEYS = { enter: '\r', ctrlC: '\x03', ctrlD: '\x04', backspace: '\x7f' } as const;

export interface PtyStep {
  /** Wait until the terminal has shown this (since the previous step's match). */
  waitFor?: string | RegExp;
  /** Then type this. */
  write: string;
}

export interface PtyOptions {
  columns?: number;
  rows?: number;
  /** Environment of the command, over binEnv() (a private config dir, the suite's compile cache). */
  env?: Record<string, string | undefined>;
  steps?: PtyStep[];
  /** The whole run, steps included (default 15 s). */
  timeoutMs?: number;
  /**
   * The command to run instead of the bin, e.g. ['sh', '-c', 'echo 1 | "$SMSLINK_NODE" "$SMSLINK_BIN" link delete -']
   * for a pipe into the bin in a terminal (SMSLINK_NODE is node, SMSLINK_BIN bin/smslink.js).
   */
  command?: string[];
}

export interface PtyResult {
  /** The command's exit code (128 + N when signal N ended it). */
  code: number | null;
  /** Everything the terminal showed, escape sequences and \r\n included. */
  output: string;
}

/** The terminal's output as plain lines: escape sequences and carriage returns removed. */
export function screenText(output: string): string {
  // eslint-disable-next-line no-control-regex
  return output.replace(/\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[@-_]/g, '').replace(/\r/g, '');
}

function matchFrom(output: string, from: number, wanted: string | RegExp): number {
  if (typeof wanted === 'string') {
    const at = output.indexOf(wanted, from);
    return at < 0 ? -1 : at + wanted.length;
  }
  const m = new RegExp(wanted.source, wanted.flags.replace('g', '')).exec(output.slice(from));
  return m ? from + m.index + m[0].length : -1;
}

/** Runs `smslink <args>` (or opts.command) in a terminal of opts.columns x opts.rows (default 80 x 24). */
export function runInPty(args: string[], opts: PtyOptions = {}): Promise<PtyResult> {
  const command = opts.command ?? [process.execPath, BIN, ...args];
  const env = binEnv({ TERM: 'xterm-256color', SMSLINK_NODE: process.execPath, SMSLINK_BIN: BIN, ...opts.env });
  const child = spawn('python3', [PTY, String(opts.columns ?? 80), String(opts.rows ?? 24), ...command], {
    env,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const steps = [...(opts.steps ?? [])];
  let output = '';
  let from = 0;
  const advance = () => {
    while (steps.length) {
      const step = steps[0];
      if (step.waitFor !== undefined) {
        const end = matchFrom(output, from, step.waitFor);
        if (end < 0) return;
        from = end;
      }
      steps.shift();
      child.stdin.write(step.write);
    }
  };
  return new Promise<PtyResult>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      const waiting = steps[0]?.waitFor;
      reject(new Error(`pty run timed out${waiting ? ` waiting for ${String(waiting)}` : ''}; the terminal showed:\n${screenText(output)}`));
    }, opts.timeoutMs ?? 15_000);
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      output += chunk;
      advance();
    });
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (steps.length) reject(new Error(`the command ended (exit ${code}) before ${String(steps[0].waitFor)}; the terminal showed:\n${screenText(output)}`));
      else resolve({ code, output });
    });
    advance();
  });
}
