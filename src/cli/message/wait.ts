// --wait: poll Message/GetSMSStatus, backing off, until every message has a
// final status or the wait runs out. Exit 0 when all were delivered, 7 when
// any ended otherwise, 3 when the wait timed out.

import { FINAL_STATUSES } from '../../catalog/codes.js';
import { count, duration, notFound, statusWithCode } from '../../output/words.js';
import type { MessageStatusRecord } from '../../catalog/types.js';
import type { SmsLinkClient } from '../../client/client.js';
import type { Command } from 'commander';
import type { CliValues } from '../core/command.js';
import type { RunContext } from '../core/context.js';
import { parseDuration, sleep } from '../core/time.js';
import { chunk, mapLimit, parseConcurrency } from '../shared/ids.js';
import { idLimit } from '../../catalog/validate.js';
import { messageStatus } from '../../catalog/message.js';
import { EXIT, ExitError, UsageError } from '../../exit-codes.js';

export interface WaitOptions {
  timeoutMs: number;
  concurrency: number;
  /** First pause between polls; grows by half each time up to maxIntervalMs. */
  intervalMs?: number;
  maxIntervalMs?: number;
}

export interface WaitResult {
  records: Map<number, MessageStatusRecord>;
  timedOut: boolean;
  /** Ctrl-C ended the wait: the records are the last ones read, printed before the run exits 130. */
  interrupted: boolean;
  /** Ids the service did not know (or that are not yours): not waited for. */
  unknown: number[];
}

/** `message 123: queued (ENQUEUD)`, or for several `3 messages: 1 delivered (DELIVRD), 2 queued (ENQUEUD)`. */
function summary(ids: number[], records: Map<number, MessageStatusRecord>): string {
  if (ids.length === 1) return `message ${ids[0]}: ${statusWithCode(String(records.get(ids[0])?.status ?? 'unknown'))}`;
  const counts = new Map<string, number>();
  for (const id of ids) {
    const status = String(records.get(id)?.status ?? 'unknown');
    counts.set(status, (counts.get(status) ?? 0) + 1);
  }
  return `${count(ids.length, 'message')}: ${[...counts.entries()].map(([s, n]) => `${n} ${statusWithCode(s)}`).join(', ')}`;
}

/** How long, as every screen says it (words.ts duration): `1 min 15 s`. */
const took = (ms: number) => duration(Math.max(0, ms) / 1000);

export async function waitForDelivery(ctx: RunContext, client: SmsLinkClient, asked: number[], opts: WaitOptions): Promise<WaitResult> {
  let ids = asked;
  let unknown: number[] = [];
  const records = new Map<number, MessageStatusRecord>();
  const started = Date.now();
  const deadline = started + opts.timeoutMs;
  const tty = ctx.io.stderr.isTTY === true;
  let interval = opts.intervalMs ?? 500;
  let lastLine = 0;
  let lastText = '';
  /**
   * The live line within the terminal, so that each redraw replaces it (one
   * cell short: a full last column wraps on some terminals): whole, or
   * shorter, or cut. The final line is printed whole, once.
   */
  // Widths are measured only for a terminal, and string-width loaded only then: `message` commands start without it.
  const { cellWidth, truncate } = tty ? await import('../../output/width.js') : { cellWidth: () => 0, truncate: (s: string) => s };
  const fit = (text: string, shorter: string) => {
    const width = (ctx.stderr.columns || 80) - 1;
    return cellWidth(text) <= width ? text : truncate(shorter, width);
  };
  // A live line on a terminal; otherwise a line when something changed (at most every 3 s) or every 10 s.
  // `shorter`: the same line without its least needed part, for a narrow terminal.
  const show = (text: string, final = false, shorter = text) => {
    const now = Date.now();
    // The final line is whole, broken at spaces to the terminal's width as every note is.
    if (tty && final) {
      ctx.stderr.write('\r\x1b[2K');
      ctx.note(text);
    } else if (tty) ctx.stderr.write(`\r\x1b[2K${fit(text, shorter)}`);
    else if (final || (text !== lastText && now - lastLine >= 3000) || now - lastLine >= 10_000) {
      ctx.note(text);
      lastLine = now;
    }
    lastText = text;
  };
  const interrupted = (): WaitResult => {
    show(`${summary(ids, records)}; stopped waiting (interrupted)`, true);
    return { records, timedOut: false, interrupted: true, unknown };
  };
  for (let poll = 0; ; poll++) {
    const pending = ids.filter((id) => !FINAL_STATUSES.has(String(records.get(id)?.status)));
    if (pending.length) {
      let answers: MessageStatusRecord[][];
      try {
        answers = await mapLimit(chunk(pending, idLimit(messageStatus)), opts.concurrency, (part) => client.call(messageStatus, { ids: part }));
      } catch (err) {
        if (ctx.io.signal?.aborted) return interrupted();
        throw err;
      }
      for (const rec of answers.flat()) records.set(Number(rec.id), rec);
    }
    // An id the service does not know will never become final: say so, and wait for the others only.
    if (poll === 0) {
      unknown = ids.filter((id) => !records.has(id));
      if (unknown.length === ids.length) throw new ExitError(notFound('message', unknown), EXIT.NOT_FOUND);
      if (unknown.length) {
        ctx.note(`${notFound('message', unknown)}; waiting for the others`);
        ids = ids.filter((id) => records.has(id));
      }
    }
    const waiting = ids.filter((id) => !FINAL_STATUSES.has(String(records.get(id)?.status)));
    const status = summary(ids, records);
    const waited = `${status}; waiting for delivery ${took(Date.now() - started)}`;
    if (waiting.length) show(`${waited} (gives up in ${took(deadline - Date.now())})`, false, waited);
    if (waiting.length === 0) {
      // Final at the first look: nothing was waited for.
      // How long the command waited, said apart from the status: `expired, after 5 s` read as when it expired.
      show(poll === 0 ? `${status}, already final` : `${status}; waited ${took(Date.now() - started)}`, true);
      return { records, timedOut: false, interrupted: false, unknown };
    }
    const left = deadline - Date.now();
    if (left <= 0) {
      // After the time --wait-timeout gave, as given: the last look ends a moment past it, which duration() would round up (2 s said as 3 s).
      show(`${status}; gave up waiting after ${took(deadline - started)} (--wait-timeout)`, true);
      return { records, timedOut: true, interrupted: false, unknown };
    }
    await sleep(Math.min(interval, left), ctx.io.signal);
    if (ctx.io.signal?.aborted) return interrupted();
    interval = Math.min(opts.maxIntervalMs ?? 10_000, Math.round(interval * 1.5));
  }
}

/** The exit code of a finished wait, with the message for stderr. */
export function waitOutcome(asked: number[], result: WaitResult): number {
  const ids = asked.filter((id) => !result.unknown.includes(id));
  const notFinal = ids.filter((id) => !FINAL_STATUSES.has(String(result.records.get(id)?.status)));
  if (result.interrupted) throw new ExitError(`interrupted while waiting; not final yet: ${notFinal.join(', ')}`, EXIT.INTERRUPTED);
  if (result.timedOut) {
    throw new ExitError(`the wait timed out (--wait-timeout); not final yet: ${notFinal.join(', ')}`, EXIT.TRANSPORT);
  }
  const failed = ids.filter((id) => result.records.get(id)?.status !== 'DELIVRD');
  if (failed.length) {
    const detail = failed.map((id) => `message ${id} ${statusWithCode(String(result.records.get(id)?.status))}`).join(', ');
    throw new ExitError(`not delivered: ${detail}`, EXIT.UNDELIVERED);
  }
  if (result.unknown.length) throw new ExitError(`all found were delivered; ${notFound('message', result.unknown)}`, EXIT.PARTIAL);
  return EXIT.OK;
}

/**
 * --wait and --wait-timeout, read before anything is sent: a bad --wait-timeout found after a send would leave a sent SMS and exit 2.
 * Undefined without --wait; --wait-timeout alone is refused, as it would wait for nothing.
 */
export function waitOptions(opts: CliValues): WaitOptions | undefined {
  if (!opts.wait) {
    if (opts.waitTimeout !== undefined) throw new UsageError('--wait-timeout applies only with --wait');
    return undefined;
  }
  return {
    timeoutMs: parseDuration(typeof opts.waitTimeout === 'string' ? opts.waitTimeout : '10m', '--wait-timeout'),
    concurrency: parseConcurrency(opts.concurrency),
  };
}

export function waitFlags(cmd: Command): Command {
  return cmd
    .option('--wait', 'wait until every message has a final status (exit 0 all delivered, 7 otherwise, 3 on timeout)')
    .option('--wait-timeout <duration>', 'how long --wait waits: 90s, 10m, 1h (default 10m)');
}

