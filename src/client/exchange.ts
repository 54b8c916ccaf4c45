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
   * AbortController, by the signal that ends them: the client's, and a call's
   * own. One listener on a signal aborts them all: a listener per attempt or
   * wait would put one on that signal per request (Node warns past 10: a bulk
   * run at --concurrency 16 printed MaxListenersExceededWarning, and an app
   * may give one signal to many calls at once).
   */
  readonly #ending = new WeakMap<AbortSignal, Set<AbortController>>();
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
    for (let attempt = 1; ; attempt++) {
      context.attempts = attempt;
      const limit = this.#controller();
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        limit.abort(Object.assign(new Error(`no answer within ${call.timeoutMs} ms`), { code: 'SMSLINK_ATTEMPT_TIMEOUT' }));
      }, call.timeoutMs);
      this.#watch(signal, limit);
      this.#watch(own, limit);
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
        this.#unwatch(signal, limit);
        this.#unwatch(own, limit);
        this.#release(limit);
      }
      const delay = outcome && retryDelay(call.idempotent, outcome, attempt, policy);
      if (delay === null || delay === undefined) {
        if (failure) throw failure;
        return answer!;
      }
      this.policy.onRetry?.({ operation: call.operation, attempt: attempt + 1, delayMs: delay, reason: describeOutcome(outcome!) });
      await this.#wait(delay, own, ended);
      // A retry follows only an attempt that changed nothing (or a safe one): an interrupted wait leaves no outcome unknown.
      const stopped = ended();
      if (stopped) throw interrupted(call.operation, stopped, { outcomeUnknown: false, attempts: attempt });
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

  /** `signal` ends `attempt` (an attempt or a wait) from now on; its one listener is added when it is first given. */
  #watch(signal: AbortSignal | undefined, attempt: AbortController): void {
    if (!signal) return;
    let ends = this.#ending.get(signal);
    if (!ends) {
      const attempts = (ends = new Set());
      this.#ending.set(signal, attempts);
      signal.addEventListener('abort', () => {
        for (const a of attempts) a.abort(signal.reason);
      }, { once: true });
    }
    ends.add(attempt);
  }

  #unwatch(signal: AbortSignal | undefined, attempt: AbortController): void {
    if (signal) this.#ending.get(signal)?.delete(attempt);
  }

  /** Waits `ms`, or less when the client's signal or the call's own (`own`) ends the call. */
  async #wait(ms: number, own: AbortSignal | undefined, ended: () => AbortSignal | undefined): Promise<void> {
    const { setTimeout: sleep } = await import('node:timers/promises');
    const wait = new AbortController();
    this.#watch(this.signal, wait);
    this.#watch(own, wait);
    if (ended()) wait.abort();
    await sleep(ms, undefined, { signal: wait.signal }).catch(() => {});
    this.#unwatch(this.signal, wait);
    this.#unwatch(own, wait);
  }
}
