// One request through a dispatcher (undici's dispatch() with handlers of its
// current API, as the client's transport uses it), answered in full: for
// tests that hold dispatchers to each other (undici, the bundled undici,
// Node's HTTP client behind node-http.ts, the sandbox's in-process one).

import type { Dispatcher } from 'undici';
import type { RawAnswer } from './emulator.js';

/** Status, headers (without `date`, which differs between any two answers) and text of one request. */
export function dispatchOnce(dispatcher: Pick<Dispatcher, 'dispatch'>, opts: Dispatcher.DispatchOptions): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    let status = 0;
    let headers: RawAnswer['headers'] = {};
    const chunks: Buffer[] = [];
    dispatcher.dispatch(opts, {
      // undici tells the handler API apart by this method.
      onRequestStart() {},
      onResponseStart(_c, statusCode, h) {
        status = statusCode;
        headers = { ...h };
        delete headers.date;
      },
      onResponseData(_c, chunk) {
        chunks.push(chunk);
      },
      onResponseEnd() {
        resolve({ status, headers, text: Buffer.concat(chunks).toString('utf8') });
      },
      onResponseError(_c, err) {
        reject(err);
      },
    });
  });
}
