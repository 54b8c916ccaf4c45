// One request through a send() (src/client/send.ts), answered in full: for
// tests that hold the implementations to each other (Node's HTTP client,
// undici, the sandbox's emulator in this process).

import type { HttpRequest, Send } from '../../src/client/send.js';
import type { RawAnswer } from './emulator.js';

/** Status, headers (without `date`, which differs between any two answers) and text of one request. */
export async function sendOnce(send: Send, req: HttpRequest): Promise<RawAnswer> {
  const { status, headers, text } = await send(req, new AbortController().signal);
  const rest = { ...headers };
  delete rest.date;
  return { status, headers: rest, text };
}
