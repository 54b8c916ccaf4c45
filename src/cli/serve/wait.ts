// `smslink serve wait [url]`: waits until the emulator at url is ready
// (GET /_emulator/readyz answers 200), for a CI job that started `serve` in
// the background. Exit 0 as soon as it is; 3 at --timeout, with what it saw.

import type { CommandDef, CliValues } from '../core/command.js';
import type { RunContext } from '../core/context.js';
import { parseDuration, sleep } from '../core/time.js';
import { EXIT, ExitError } from '../../exit-codes.js';
import { elapsed } from '../../output/words.js';
import { DEFAULT_URL } from '../../emulator/defaults.js';
import { controlAt, Unreachable } from '../shared/emulator-control.js';

/** Each look at readyz may take this long: a server that accepts and never answers is not ready. */
const LOOK_MS = 2_000;
/** Pauses between looks grow from the first to the last: a server starting in 150 ms is seen soon, one taking a minute is not asked 600 times. */
const FIRST_PAUSE_MS = 50;
const LAST_PAUSE_MS = 500;

async function serveWait(ctx: RunContext, opts: CliValues, given: string | undefined): Promise<number> {
  const timeout = typeof opts.timeout === 'string' ? opts.timeout : '30s';
  const timeoutMs = parseDuration(timeout, '--timeout');
  const base = (given ?? ctx.settings().baseUrl.value ?? DEFAULT_URL).replace(/\/+$/, '');
  const control = await controlAt(ctx, base);
  if (ctx.globals.dryRun) {
    ctx.stdout.write(`dry run: would ask GET ${control.url('readyz')} until it answers 200, for up to ${timeout}\n`);
    return EXIT.OK;
  }
  const started = Date.now();
  const deadline = started + timeoutMs;
  let last = 'no answer yet';
  for (let pause = FIRST_PAUSE_MS; ; pause = Math.min(LAST_PAUSE_MS, pause * 2)) {
    const lookMs = Math.max(1, Math.min(LOOK_MS, deadline - Date.now()));
    try {
      const answer = await control.request('GET', 'readyz', lookMs);
      if (answer.status === 200 && answer.json?.status === 'ready') {
        if (!ctx.globals.quiet) ctx.note(`${base} is ready (after ${elapsed(Date.now() - started)})`);
        return EXIT.OK;
      }
      const reason = typeof answer.json?.reason === 'string' ? answer.json.reason : undefined;
      last = reason ? `not ready: ${reason}` : answer.json ? `HTTP ${answer.status}` : `HTTP ${answer.status}, not smslink serve (is something else on that port?)`;
    } catch (err) {
      if (!(err instanceof Unreachable)) throw err;
      // A last look cut short by the deadline says less than what was seen before it.
      if (lookMs === LOOK_MS || last === 'no answer yet') last = err.reason;
    }
    const left = deadline - Date.now();
    if (left <= 0) throw new ExitError(`the emulator at ${base} was not ready within ${timeout} (--timeout): ${last}`, EXIT.TRANSPORT);
    await sleep(Math.min(pause, left), ctx.io.signal);
    if (ctx.io.signal?.aborted) throw new ExitError(`interrupted while waiting for ${base}`, EXIT.INTERRUPTED);
  }
}

export const SERVE_WAIT: CommandDef = {
  path: ['serve', 'wait'],
  summary: 'Wait until an emulator started with serve is ready (for CI jobs)',
  flags: (cmd) =>
    cmd
      .argument('[url]', 'the emulator\'s base URL (default: --base-url, SMSLINK_BASE_URL, else http://127.0.0.1:8080)')
      .option('--timeout <duration>', 'how long to wait: 30s, 2m (default 30s)'),
  about: `Asks GET <url>/_emulator/readyz until it answers 200 (the database is
open and requests are served), which needs no control token and reads no
account. Exit 0 as soon as it does; 3 at --timeout, saying what it last saw
(connection refused, not ready, or an answer that is not serve's). A CI job
starts \`smslink serve ... &\`, then runs this before the app's tests.`,
  examples: [
    'smslink serve --port 8080 --db :memory: --quiet & smslink serve wait --timeout 30s',
    'smslink serve wait http://127.0.0.1:8080 --timeout 1m && npm test',
  ],
  run: (ctx, opts, [url]) => serveWait(ctx, opts, url as string | undefined),
};
