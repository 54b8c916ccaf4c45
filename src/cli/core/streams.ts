// The streams a command writes to: the terminal's own properties seen
// through, and what is written scrubbed of secrets or held for the pager.

import type { OutStream } from '../../output/format.js';
import { redact } from '../../secrets.js';
import { stdinInterrupted, UsageError } from '../../exit-codes.js';
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

/**
 * All of stdin as text (ids, a message text, a key): refused when stdin is a terminal, which would wait for typing.
 * Ctrl-C or SIGTERM ends the wait (exit 130): a pipe whose writer never closes it (`timeout 60 smslink ...` in a
 * CI step fed by a long-lived process) must not keep the command alive after it was told to stop.
 */
export function readStdin(io: Pick<CliIO, 'stdin' | 'signal'>): Promise<string> {
  const { stdin, signal } = io;
  if (stdin.isTTY) return Promise.reject(new UsageError('expected input on stdin (pipe it in), but stdin is a terminal'));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const onData = (chunk: Buffer | string) => chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    const finish = (then: () => void) => {
      stdin.off('data', onData).off('end', onEnd).off('error', onError);
      signal?.removeEventListener('abort', onAbort);
      then();
    };
    const onEnd = () => finish(() => resolve(Buffer.concat(chunks).toString('utf8')));
    const onError = (err: Error) => finish(() => reject(err));
    const onAbort = () =>
      finish(() => {
        stdin.pause(); // nothing reads it any more: let the process end
        reject(stdinInterrupted());
      });
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    stdin.on('data', onData).once('end', onEnd).once('error', onError);
  });
}
