// --jq EXPR, as gh has it: the command's JSON output goes through jq (the real
// jq, compiled to WebAssembly: jq-wasm), strings printed without quotes (at a
// terminal, their controls escaped as a table's are). Loaded only when --jq is
// given; the expression is checked before anything is sent.

import { ExitError, EXIT, UsageError } from '../../exit-codes.js';
import type { OutStream } from '../../output/format.js';
import { escapeControls } from '../../output/text.js';
import { StreamView } from './streams.js';

/** jq's own text of a failure, without its `jq: error: ` (ours says error: already) or where in our pipe it was (`(at /dev/stdin:62)`). */
function jqText(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message
    .replace(/^(jq: error:? )?(\(at [^)]*\):? )?/, '')
    .replace(/[ \t]+$/gm, '')
    .trim();
}

/** jq's output; a failure (a compile error, `error(...)`, input that is not JSON) is thrown with jq's own words. */
async function jq(input: string, expr: string, flags: string[]): Promise<string> {
  const { raw } = await import('jq-wasm');
  const { stdout, stderr, exitCode } = await raw(input, expr, flags);
  if (exitCode !== 0) throw new Error(stderr || `jq exited ${exitCode}`);
  return stdout;
}

/**
 * An expression jq cannot compile is a usage error (exit 2), found before the
 * command sends anything. It is tried on `null` (-n): a runtime error there
 * says nothing about the real output, so only compile errors count.
 */
export async function checkJq(expr: string): Promise<void> {
  try {
    await jq('null', expr, ['-n']);
  } catch (err) {
    const text = jqText(err);
    if (/compile error/.test(text)) throw new UsageError(`--jq: invalid expression: ${text}`);
  }
}

/**
 * Holds what the command writes and gives it to jq: JSON lines (ndjson,
 * --follow) as each line is complete, so a stream stays a stream; a document
 * of several lines (json) once the command is done. Results go to `inner`:
 * strings raw, other values as JSON, indented at a terminal as jq does,
 * one per line otherwise. A terminal gets the service's control characters
 * escaped (escapeControls): a raw string could retitle the window or clear
 * the screen. A file or pipe gets jq's bytes.
 */
export class JqStream extends StreamView {
  #held = '';
  #done: Promise<void> = Promise.resolve();
  /** Whether the held text is JSON lines, decided by its first line. */
  #lines: boolean | undefined;

  constructor(
    inner: OutStream,
    private readonly expr: string,
  ) {
    super(inner);
  }

  write(chunk: string): boolean {
    this.#held += chunk;
    const cut = this.#held.lastIndexOf('\n') + 1;
    if (cut === 0) return true;
    this.#lines ??= isJson(this.#held.slice(0, this.#held.indexOf('\n')));
    if (this.#lines) {
      this.#filter(this.#held.slice(0, cut));
      this.#held = this.#held.slice(cut);
      // Behind: these lines wait for jq, then for the reader; drained() says when they have gone out.
      return false;
    }
    return true;
  }

  /** Resolves once every line given so far has been filtered and written, the reader keeping up. */
  override async drained(): Promise<void> {
    await this.#done.catch(() => {});
  }

  #filter(input: string): void {
    const flags = this.inner.isTTY ? ['-r'] : ['-r', '-c'];
    this.#done = this.#done.then(async () => {
      const out = await jq(input, this.expr, flags).catch((err: unknown) => {
        throw new ExitError(`--jq: ${jqText(err)} (the command itself was carried out)`, EXIT.USAGE);
      });
      if (out === '') return;
      const text = out.endsWith('\n') ? out : `${out}\n`;
      if (this.inner.write(this.inner.isTTY ? escapeControls(text) : text) === false) await this.inner.drained?.();
    });
    // Seen by end(); until then a failure must not count as unhandled.
    this.#done.catch(() => {});
  }

  /** Filters what is still held and waits for every result to be written; a jq failure is thrown here. */
  async end(): Promise<void> {
    const held = this.#held;
    this.#held = '';
    // A command that prints no JSON (a path, a completion script): say so, rather than jq's parse error.
    if (held.trim() !== '' && !/^\s*([[{"\d-]|true|false|null)/.test(held)) throw new UsageError('--jq filters JSON output, and this command prints none');
    if (held.trim() !== '') this.#filter(held);
    await this.#done;
  }
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
