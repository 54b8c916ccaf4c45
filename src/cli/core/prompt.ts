// Questions to a person at a terminal: a line, a secret (nothing echoed), a
// yes/no. Prompts go to stderr so stdout stays data. Only a terminal is
// asked; a command run with stdin piped never stops to wait for an answer.

import type { RunContext } from './context.js';
import { EXIT, ExitError } from '../../exit-codes.js';

type TerminalInput = NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown };

/** Whether a yes/no may be asked: a person can read the question (stderr) and answer it (stdin). */
export function canConfirm(ctx: RunContext): boolean {
  // stderr first: reading io.stdin sets stdin up, which a script's run need not pay for.
  return ctx.io.stderr.isTTY === true && ctx.io.stdin.isTTY === true;
}

const interrupted = () => new ExitError('interrupted at the prompt; nothing was changed', EXIT.INTERRUPTED);

/** What a terminal sent after the answer to the last question (typed ahead), kept for the next one. */
const typedAhead = new WeakMap<object, string>();

/**
 * Reads what the terminal sends, handing the text so far to `take` until it
 * returns an answer; at the end of input (Ctrl-D on an empty line in cooked
 * mode) `ended` is set and `take` must answer. Ctrl-C (SIGINT, or the byte itself in raw mode)
 * and an aborted run reject with exit code 130.
 */
function read<T>(ctx: RunContext, take: (text: string, ended: boolean) => { answer: T; rest: string } | undefined): Promise<T> {
  const input = ctx.io.stdin as TerminalInput;
  const signal = ctx.io.signal;
  return new Promise<T>((resolve, reject) => {
    const decoder = new TextDecoder();
    let text = typedAhead.get(input) ?? '';
    typedAhead.delete(input);
    const finish = (fn: () => void) => {
      input.removeListener('data', onData);
      input.removeListener('end', onEnd);
      signal?.removeEventListener('abort', onAbort);
      input.pause();
      fn();
    };
    const offer = (ended: boolean) => {
      if (text.includes('\x03')) return finish(() => reject(interrupted()));
      const got = take(text, ended);
      if (got) finish(() => {
        if (got.rest) typedAhead.set(input, got.rest);
        resolve(got.answer);
      });
    };
    const onData = (chunk: Buffer | string) => {
      text += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
      offer(false);
    };
    const onEnd = () => {
      text += decoder.decode();
      const got = take(text, true);
      finish(() => resolve(got!.answer));
    };
    const onAbort = () => finish(() => reject(interrupted()));
    if (signal?.aborted) return reject(interrupted());
    signal?.addEventListener('abort', onAbort);
    input.on('data', onData);
    input.on('end', onEnd);
    input.resume();
    if (text) offer(false);
  });
}

/** One line as typed (the terminal echoes it and lets the person edit it). */
export async function promptLine(ctx: RunContext, question: string): Promise<string> {
  ctx.stderr.write(question);
  try {
    return await read(ctx, (text, ended) => {
      const end = text.search(/\r?\n/);
      if (end >= 0) return { answer: text.slice(0, end).trim(), rest: text.slice(text.indexOf('\n', end) + 1) };
      return ended ? { answer: text.trim(), rest: '' } : undefined;
    });
  } catch (err) {
    // Ctrl-C left the cursor after the question (and the terminal's ^C): the error goes on a line of its own.
    ctx.stderr.write('\n');
    throw err;
  }
}

/**
 * Applies the keys of a raw terminal to the text typed so far: Backspace
 * removes a character, Ctrl-U the whole line; other control characters and
 * escape sequences (arrow keys, bracketed paste marks) are dropped.
 * Returns the text, and where Enter or Ctrl-D ended it (-1 when not yet).
 */
function applyKeys(keys: string): { value: string; end: number } {
  let value = '';
  // Escape sequences become NULs of the same length (dropped below), so `end` stays an index into `keys`.
  // eslint-disable-next-line no-control-regex
  const clean = keys.replace(/\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[@-_]?/g, (seq) => '\0'.repeat(seq.length));
  for (let i = 0; i < clean.length; i++) {
    const c = clean[i];
    if (c === '\r' || c === '\n' || c === '\x04') return { value, end: i + (c === '\r' && clean[i + 1] === '\n' ? 2 : 1) };
    if (c === '\x7f' || c === '\b') value = [...value].slice(0, -1).join('');
    else if (c === '\x15') value = '';
    else if (c >= ' ') value += c;
  }
  return { value, end: -1 };
}

/**
 * A secret, typed or pasted with nothing echoed (the terminal is put in raw
 * mode while it is read, and back as it was after). Empty when the person
 * pressed Enter or Ctrl-D without typing.
 */
export async function promptSecret(ctx: RunContext, question: string): Promise<string> {
  const input = ctx.io.stdin as TerminalInput;
  // Echo goes off before the question shows: a key pasted as soon as it appears is never echoed.
  input.setRawMode?.(true);
  ctx.stderr.write(question);
  try {
    return await read(ctx, (text, ended) => {
      const { value, end } = applyKeys(text);
      if (end >= 0) return { answer: value.trim(), rest: text.slice(end) };
      return ended ? { answer: value.trim(), rest: '' } : undefined;
    });
  } finally {
    input.setRawMode?.(false);
    // Enter was not echoed: end the prompt's line ourselves.
    ctx.stderr.write('\n');
  }
}

/** Asks a yes/no question whose default is no; true only for y or yes. */
export async function confirm(ctx: RunContext, question: string): Promise<boolean> {
  const answer = await promptLine(ctx, `${question} [y/N] `);
  return /^(y|yes)$/i.test(answer);
}

/**
 * Asks before a destructive step, on a terminal only: with --yes, or when
 * stdin or stderr is not a terminal (a script, a pipe), nothing is asked and
 * the step goes ahead. Returns the exit code to stop with when the answer
 * is not yes (`nothingDone` is said), or undefined to go ahead.
 */
export async function askFirst(ctx: RunContext, opts: { yes?: unknown }, question: string, nothingDone: string): Promise<number | undefined> {
  if (opts.yes === true || !canConfirm(ctx)) return undefined;
  if (await confirm(ctx, question)) return undefined;
  ctx.note(nothingDone);
  // As gh does for a declined prompt: not 0, so a script that asked cannot take it for done.
  return EXIT.USAGE;
}

/** A list of ids for a question: the first few, and how many more. */
export function idList(ids: readonly (string | number)[], shown = 5): string {
  const head = ids.slice(0, shown).join(', ');
  return ids.length > shown ? `${head} and ${ids.length - shown} more` : head;
}

/** The flag that answers yes to askFirst's question. */
export const YES_OPTION = ['-y, --yes', 'do not ask for confirmation on a terminal'] as const;

/** The question for an API key, as gh and stripe ask it. */
export const KEY_PROMPT = 'Paste your API key: ';
