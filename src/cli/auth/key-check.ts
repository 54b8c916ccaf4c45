// Whether the service accepts a key, for `login` (before saving it) and
// `status`: Message/GetSMSStatus of one id, the cheapest call that needs a
// valid key (one row at most, nothing written, no count). An id that does not
// exist or is not this key's is left out of the answer (service-api.md), so
// any code-0 answer means accepted.

import { messageStatus } from '../../catalog/message.js';
import type { SmsLinkClient } from '../../client/client.js';
import { ApiError } from '../../client/errors.js';
import { authHint, describeFailure } from '../core/exit.js';
import { EXIT } from '../../exit-codes.js';

export const CHECK_OPERATION = 'Message/GetSMSStatus';

export interface KeyCheck {
  accepted: boolean;
  /** The service refused the key (code 8 or 13); false when it said nothing of it (not reached, another failure). */
  refused: boolean;
  /** The exit code of the run: 0 when accepted, 4 when refused, 3 when the service could not be reached. */
  code: number;
  /** What went wrong and what to do, when not accepted. */
  problem?: string;
  /** The service's result code, when it answered. */
  serviceCode?: number;
  ms: number;
}

/** Makes the check's call with the client `open` gives; any failure (opening it included) becomes the result. */
export async function checkKey(open: () => Promise<SmsLinkClient>): Promise<KeyCheck> {
  const started = performance.now();
  const ms = () => Math.round(performance.now() - started);
  try {
    const client = await open();
    await client.call(messageStatus, { ids: [1] });
    return { accepted: true, refused: false, code: EXIT.OK, serviceCode: 0, ms: ms() };
  } catch (err) {
    if (err instanceof ApiError && err.isAuth) {
      // Code 8's usual hint (check the key with `smslink status`) is where this check runs: only 13 says more.
      const hint = err.code === 13 ? authHint(err) : '';
      const problem = `the service refused the key: ${err.meaning} (code ${err.code})${hint}`;
      return { accepted: false, refused: true, code: EXIT.CONFIG, problem, serviceCode: err.code, ms: ms() };
    }
    // As for code 8 above: this check is what `smslink status` runs, so its hints do not send the user there.
    const failure = describeFailure(err, undefined, undefined, false);
    return { accepted: false, refused: false, code: failure.code, problem: failure.message, serviceCode: err instanceof ApiError ? err.code : undefined, ms: ms() };
  }
}
