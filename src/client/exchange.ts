// The retry loop, beside retry.ts's policy: send, read the envelope, classify
// the outcome, wait as the policy says, send again. Each attempt has its own
// time limit (the connection included); the client's signal ends every call
// at once, a wait included, and a call's own signal that call.

import { getEventListeners } from 'node:events';
import { redact } from '../secrets.js';
import { parseEnvelope, type Envelope } from './envelope.js';
import { describeFailure, interrupted, type SettingNames } from './errors.js';
import { answerOutcome, describeOutcome, failureOutcome, retryDelay, type Outcome, type RetryOptions } from './retry.js';
import type { HttpRequest, Send } from './send.js';

/** What a call is, for the errors that name it. */
export interface CallContext {
  operation: string;
  url: string;
  idempotent: boolean;
  timeoutMs: number;
  /** host:port of the proxy the request goes through. */
  proxy?: string;
  /** What the caller calls the settings an error points to. */
  names: SettingNames;
  /** The call's own signal (CallOptions), besides the client's. */
  signal?: AbortSignal;
  /** The call's own retries, instead of the policy's. */
  retries?: number;
}

/** Spare controllers kept at most: as many as attempts run at once, in practice (--concurrency). */
const MAX_SPARE = 256;

export class Exchanges {
  /**
   * The attempts in flight and the waits before a retry, each with its own
   * AbortController. One listener on the caller's signal aborts them all: a
   * listener per attempt or wait would put one on that signal per request
   * (Node warns past 10, and a bulk run at --concurrency 16 printed
   * MaxListenersExceededWarning).
   */
  readonly #attempts = new Set<AbortController>();
  #listening = false;
  /** Controllers of attempts that ended unaborted, with no listener left on their signal: as good as new (#controller). */
  readonly #spare: AbortController[] = [];

  constructor(
    private readonly policy: RetryOptions,
    private readonly signal?: AbortSignal,
  ) {}

  /** Sends `request` until an answer the policy does not retry (or an error it does not); returns the status and envelope. */
  async exchange(send: Send, request: HttpRequest, call: CallContext): Promise<{ status: number; env: Envelope }> {
    const { signal } = this;
    const own = call.signal;
    const policy = call.retries === undefined ? this.policy : { ...this.policy, retries: call.retries };
    const context = { ...call, attempts: 0 };
    /** The signal that ended this call, if one has: the client's, or the call's own. */
    const ended = () => (signal?.aborted ? signal : own?.aborted ? own : undefined);
    // The call's own signal aborts what the call is doing now: an attempt, or the wait before the next.
    let current: AbortController | undefined;
    const onAbort = () => current?.abort(own!.reason);
    own?.addEventListener('abort', onAbort, { once: true });
    this.#listen();
    try {
      for (let attempt = 1; ; attempt++) {
        context.attempts = attempt;
        const limit = (current = this.#controller());
        let timedOut = false;
        const timer = setTimeout(() => {
          timedOut = true;
          limit.abort(Object.assign(new Error(`no answer within ${call.timeoutMs} ms`), { code: 'SMSLINK_ATTEMPT_TIMEOUT' }));
        }, call.timeoutMs);
        // Only a caller's signal needs them all at hand (a Set added to and deleted from per attempt remakes its table, as #controller says of signals).
        if (signal) this.#attempts.add(limit);
        let outcome: Outcome | null;
        let failure: Error | undefined;
        let answer: { status: number; env: Envelope } | undefined;
        try {
          const before = ended();
          if (before) limit.abort(before.reason);
          const res = await send(request, limit.signal);
          try {
            answer = { status: res.status, env: parseEnvelope(call.operation, res.status, redact(res.text), !call.idempotent) };
            outcome = answerOutcome(res.status, answer.env.code, res.headers);
          } catch (err) {
            failure = err as Error;
            // Not the envelope, or an HTTP error status: no code to go by.
            outcome = answerOutcome(res.status, null, res.headers);
          }
        } catch (err) {
          const how = failureOutcome(err, timedOut);
          const stopped = ended();
          failure = describeFailure(err, how, stopped, context);
          if (stopped) throw failure;
          outcome = how;
        } finally {
          clearTimeout(timer);
          if (signal) this.#attempts.delete(limit);
          // Before it may become a spare: the call's signal must not reach an attempt of another call.
          current = undefined;
          this.#release(limit);
        }
        const delay = outcome && retryDelay(call.idempotent, outcome, attempt, policy);
        if (delay === null || delay === undefined) {
          if (failure) throw failure;
          return answer!;
        }
        this.policy.onRetry?.({ operation: call.operation, attempt: attempt + 1, delayMs: delay, reason: describeOutcome(outcome!) });
        await this.#wait(delay, (current = new AbortController()), ended);
        current = undefined;
        // A retry follows only an attempt that changed nothing (or a safe one): an interrupted wait leaves no outcome unknown.
        const stopped = ended();
        if (stopped) throw interrupted(call.operation, stopped, { outcomeUnknown: false, attempts: attempt });
      }
    } finally {
      own?.removeEventListener('abort', onAbort);
    }
  }

  /**
   * An attempt's controller: a spare one when there is one. Node keeps an
   * AbortSignal through the young generation's collections even when it is
   * dropped at once (`node --trace-gc-nvp` counts it promoted), so one new
   * per attempt filled a bulk run's old generation with dead signals and
   * raised its peak memory (`npm run bench -- --scale`, bulk-run).
   */
  #controller(): AbortController {
    return this.#spare.pop() ?? new AbortController();
  }

  #release(limit: AbortController): void {
    if (limit.signal.aborted || this.#spare.length >= MAX_SPARE || getEventListeners(limit.signal, 'abort').length > 0) return;
    this.#spare.push(limit);
  }

  /** One listener on the caller's signal, added with the first call. */
  #listen(): void {
    const { signal } = this;
    if (!signal || this.#listening) return;
    this.#listening = true;
    signal.addEventListener('abort', () => {
      for (const attempt of this.#attempts) attempt.abort(signal.reason);
    }, { once: true });
  }

  /** Waits `ms`, or until `wait` is aborted: by the client's signal (one of #attempts) or the call's own. */
  async #wait(ms: number, wait: AbortController, ended: () => AbortSignal | undefined): Promise<void> {
    const { setTimeout: sleep } = await import('node:timers/promises');
    this.#attempts.add(wait);
    if (ended()) wait.abort();
    await sleep(ms, undefined, { signal: wait.signal }).catch(() => {});
    this.#attempts.delete(wait);
  }
}
