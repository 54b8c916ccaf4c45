// The streams a command writes to: the terminal's own properties seen
// through, and what is written scrubbed of secrets or held for the pager.

import type { OutStream } from '../output/format.js';
import { redact } from '../secrets.js';

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
