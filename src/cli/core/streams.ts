// The streams a command writes to: the terminal's own properties seen
// through, and what is written scrubbed of secrets or held for the pager.

import type { OutStream } from '../../output/format.js';
import { redact } from '../../secrets.js';
import { UsageError } from '../../exit-codes.js';
import type { CliIO } from './io.js';

/** A stream in front of another: a terminal's width and height show through. */
export abstract class StreamView implements OutStream {
  constructor(readonly inner: OutStream) {}
  get isTTY() {
    return this.inner.isTTY;
  }
  get columns() {
    return this.inner.columns;
  }
  get rows() {
    return this.inner.rows;
  }
  abstract write(chunk: string): unknown;
  drained(): Promise<void> {
    return this.inner.drained?.() ?? Promise.resolve();
  }
}

/** Never lets a secret through. */
export class ScrubbedStream extends StreamView {
  write(chunk: string): unknown {
    return this.inner.write(redact(chunk));
  }
}

/** Collects what a command writes, to be paged (or printed) when it is done. */
export class PageBuffer extends StreamView {
  text = '';
  write(chunk: string): boolean {
    this.text += chunk;
    return true;
  }
}

/** All of stdin as text (ids, a message text, a key): refused when stdin is a terminal, which would wait for typing. */
export async function readStdin(stdin: CliIO['stdin']): Promise<string> {
  if (stdin.isTTY) throw new UsageError('expected input on stdin (pipe it in), but stdin is a terminal');
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}
