// `smslink serve` runs the emulator until interrupted, with its inspector,
// control API and seed file (src/emulator does the work).

import type { SeedData } from '../../emulator/index.js';
import { maskKey, registerSecret } from '../../secrets.js';
import type { CommandDef, CliValues } from '../core/command.js';
import type { RunContext } from '../core/context.js';
import { EXIT, UsageError } from '../../exit-codes.js';
import { invalidValue } from '../../output/words.js';
import { baseUrlRule } from '../../config/resolve.js';

const collect = (v: string, prev: string[] | undefined) => [...(prev ?? []), v];

function number(value: unknown, flag: string, check: (n: number) => boolean, rule: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || !check(n)) throw new UsageError(`${flag}: invalid value "${value}": ${rule}`);
  return n;
}

/**
 * --seed names a seed file; a whole number there is the fault seed of
 * releases before --fault-seed, still taken for one release.
 */
async function seedOption(ctx: RunContext, opts: CliValues): Promise<{ file?: string; faultSeed?: number }> {
  const faultSeed = number(opts.faultSeed, '--fault-seed', (n) => Number.isInteger(n), 'must be a whole number');
  if (typeof opts.seed !== 'string') return { faultSeed };
  if (/^-?\d+$/.test(opts.seed.trim())) {
    await ctx.warn(`--seed ${opts.seed.trim()}: a number here is the fault seed, now --fault-seed; --seed takes a seed file (this form goes in the next release)`);
    return { faultSeed: faultSeed ?? Number(opts.seed) };
  }
  return { file: opts.seed, faultSeed };
}

/** How long a request line may wait to be written with others (a person does not see 50 ms). */
const LINES_EVERY_MS = 50;
/** How many request lines may wait: lines kept longer outlive V8's young generation, and each is copied as it is collected. */
const LINES_AT_ONCE = 64;

/**
 * The request lines gathered and written together, at most LINES_EVERY_MS
 * after the first or once LINES_AT_ONCE wait: under load one write carries
 * many lines instead of a system call each (remeasure: `npm run bench --
 * --only emulator`, or `node bench/inspector.js` with and without --quiet).
 */
function batchedLines(write: (text: string) => void): { line: (line: string) => void; flush: () => void } {
  let pending: string[] = [];
  let timer: NodeJS.Timeout | null = null;
  const flush = () => {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    if (pending.length === 0) return;
    const text = `${pending.join('\n')}\n`;
    pending = [];
    write(text);
  };
  return {
    line: (line) => {
      const waiting = pending.push(line);
      if (waiting === 1) timer = setTimeout(flush, LINES_EVERY_MS);
      else if (waiting >= LINES_AT_ONCE) flush();
    },
    flush,
  };
}

/**
 * The accepted keys as serve names them: masked (maskKey), as any key is
 * shown, since a terminal's scrollback and a CI log are read by others. The
 * default (`publicKey`, "sandbox") is a public word the help gives: it is named.
 */
// Said in 80 columns, where a terminal would otherwise cut its last word.
function shownKeys(keys: readonly string[], publicKey: string): string {
  if (keys.length === 1 && keys[0] === publicKey) return `${publicKey} (the public default; --api-key or --seed sets yours)`;
  return keys.map(maskKey).join(', ');
}

/** The flags whose values the emulator would take without a word (or refuse in its own terms), checked here and named. */
function checkServeValues(opts: CliValues, apiKeys: readonly string[], knownTimeZone: (zone: string) => boolean): void {
  const empty = (flag: string, values: unknown) => {
    if ([values].flat().some((v) => typeof v === 'string' && v.trim() === '')) throw new UsageError(invalidValue(flag, '', 'must not be empty'));
  };
  empty('--api-key', apiKeys);
  empty('--sender', opts.sender);
  empty('--control-token', opts.controlToken);
  if (typeof opts.tz === 'string' && !knownTimeZone(opts.tz)) throw new UsageError(invalidValue('--tz', opts.tz, 'must be a time zone such as Asia/Almaty, Europe/Berlin or UTC'));
  // The rule of a base URL: http(s), a host and path, no credentials, query or fragment.
  if (typeof opts.shortBase === 'string' && baseUrlRule(opts.shortBase) !== null) {
    throw new UsageError(invalidValue('--short-base', opts.shortBase, 'must be an http(s):// URL of a host (and path), such as https://sho.rt'));
  }
}

async function serve(ctx: RunContext, opts: CliValues): Promise<number> {
  const { startEmulator, sandboxDbPath, parseFaults, readSeedFile, checkSeed, SeedError, isLoopback, knownTimeZone, DEFAULTS, CURRENCY_CODE } = await import('../../emulator/index.js');
  if (typeof opts.faults === 'string') {
    try {
      parseFaults(opts.faults);
    } catch (err) {
      throw new UsageError(`--faults: ${(err as Error).message}`);
    }
    if (opts.faultRate === undefined) await ctx.warn('--faults has no effect without --fault-rate');
  }
  if (typeof opts.currency === 'string' && !CURRENCY_CODE.test(opts.currency)) {
    throw new UsageError(`--currency: invalid value "${opts.currency}": must be an ISO 4217 code of three capital letters, e.g. KZT`);
  }
  checkServeValues(opts, ctx.globals.apiKeys ?? [], knownTimeZone);
  const { file: seedFile, faultSeed } = await seedOption(ctx, opts);
  const controlToken = typeof opts.controlToken === 'string' ? opts.controlToken : ctx.env.SMSLINK_CONTROL_TOKEN || undefined;
  registerSecret(controlToken);
  // As for --api-key elsewhere: said to a person at a terminal, a script's stderr stays quiet.
  if (ctx.io.stderr.isTTY && ctx.globals.apiKeys?.length) {
    await ctx.warn('--api-key is visible to other users in the process list; prefer the keys of a seed file (--seed; `smslink serve init` writes one).');
  }
  if (ctx.io.stderr.isTTY && typeof opts.controlToken === 'string') {
    await ctx.warn('--control-token is visible to other users in the process list; prefer SMSLINK_CONTROL_TOKEN.');
  }
  let seed: unknown = undefined;
  if (seedFile !== undefined) {
    try {
      seed = await readSeedFile(seedFile);
      // Checked here too, so a bad file is a usage error before anything listens.
      checkSeed(seed, ctx.globals.apiKeys ?? [], (opts.sender as string[] | undefined) ?? []);
    } catch (err) {
      // A file that cannot be read names itself (`cannot read "x.yaml": ...`); what is wrong inside one is named after it.
      if (err instanceof SeedError) throw new UsageError(err.cause ? `--seed: ${err.message}` : `--seed ${seedFile}: ${err.message}`);
      throw err;
    }
  }
  const lines = ctx.globals.quiet ? null : batchedLines((text) => void ctx.stdout.write(text));
  const options = {
    host: typeof opts.host === 'string' ? opts.host : DEFAULTS.host,
    port: number(opts.port, '--port', (n) => Number.isInteger(n) && n >= 0 && n <= 65535, 'must be a port number from 0 to 65535') ?? DEFAULTS.port,
    db: typeof opts.db === 'string' ? opts.db : sandboxDbPath(ctx.env),
    apiKeys: ctx.globals.apiKeys?.length ? ctx.globals.apiKeys : undefined,
    shortBase: typeof opts.shortBase === 'string' ? opts.shortBase : undefined,
    timeScale: number(opts.timeScale, '--time-scale', (n) => n > 0, 'must be a positive number'),
    tz: typeof opts.tz === 'string' ? opts.tz : undefined,
    moderation: opts.moderation === true,
    senders: opts.sender as string[] | undefined,
    blockPattern: typeof opts.blockPattern === 'string' ? opts.blockPattern : undefined,
    price: number(opts.price, '--price', (n) => n >= 0, 'must be zero or more'),
    balance: number(opts.balance, '--balance', (n) => n >= 0, 'must be zero or more'),
    currency: typeof opts.currency === 'string' ? opts.currency : undefined,
    faultRate: number(opts.faultRate, '--fault-rate', (n) => n >= 0 && n <= 1, 'must be a probability from 0 to 1'),
    faults: typeof opts.faults === 'string' ? opts.faults : undefined,
    faultSeed,
    seed: seed as SeedData | undefined,
    inspector: opts.inspector !== false,
    controlToken,
    cors: opts.cors as string[] | undefined,
    log: (line: string) => ctx.note(line),
    // One line per request on stdout, its key masked by the emulator; -q turns them off.
    requestLog: lines?.line,
  };
  let emulator;
  try {
    emulator = await startEmulator(options);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'EADDRINUSE') throw new UsageError(`--port: ${options.host}:${options.port} is already in use; pick another port or --port 0`);
    if (err instanceof RangeError || err instanceof SyntaxError) throw new UsageError(e.message);
    throw err;
  }
  ctx.io.stdout.write(`listening on ${emulator.url}\naccepting API keys: ${shownKeys(emulator.keys, DEFAULTS.apiKeys[0])}\n`);
  if (emulator.inspectorUrl) ctx.io.stdout.write(`inspector: ${emulator.inspectorUrl}\n`);
  if (options.db !== ':memory:') ctx.note(`database: ${options.db}${seedFile !== undefined ? ' (emptied, then seeded)' : ''}`);
  if (seedFile !== undefined) ctx.note(`seeded from ${seedFile}; POST ${emulator.url}/_emulator/reset goes back to it`);
  if (!isLoopback(options.host)) {
    ctx.note(
      controlToken
        ? `the inspector and control API need the control token: open ${emulator.url}/?token=<token> once, or send "Authorization: Bearer <token>"`
        : 'the inspector and control API are off on a non-loopback address: start with --control-token to use them',
    );
  }
  if (options.faultRate) ctx.note(`injecting faults into ${options.faultRate * 100}% of /service/ requests`);
  // Run until SIGINT/SIGTERM (the bin aborts io.signal), then stop cleanly.
  await new Promise<void>((resolve) => {
    if (!ctx.io.signal) return; // no way to be told to stop: serve forever
    if (ctx.io.signal.aborted) return resolve();
    ctx.io.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await emulator.close();
  lines?.flush();
  ctx.note('stopped');
  return EXIT.OK;
}

export const SERVE: CommandDef = {
  path: ['serve'],
  summary: 'Run the emulator of the service (stateful, on 127.0.0.1:8080 by default)',
  flags: (cmd) =>
    cmd
      .option('--host <host>', 'interface to bind (default 127.0.0.1)')
      .option('--port <port>', 'port; 0 picks a free one (default 8080)')
      .option('--db <path>', 'database file, or :memory: (default: the sandbox database)')
      .option('--short-base <url>', 'base of the short links it hands out (default: its own URL)')
      .option('--time-scale <n>', 'run the message lifecycle n times faster (default 1)')
      .option('--tz <zone>', 'account time zone, e.g. Asia/Almaty (default UTC)')
      .option('--moderation', 'sends await moderation (status 1) before they go out')
      .option('--sender <name>', 'a registered sender ID (repeatable)', collect)
      .option('--block-pattern <regex>', 'create links whose fullLink matches as blocked')
      .option('--price <amount>', 'price of one segment (default 0.01)')
      .option('--balance <amount>', "each account's balance before its first message; every message takes segments x price off (default 100)")
      .option('--currency <code>', 'currency of the balance and prices, an ISO 4217 code (default KZT)')
      .option('--fault-rate <p>', 'probability that a /service/ request gets a fault (default 0)')
      .option('--faults <list>', 'faults to draw from, comma-separated: latency:MIN-MAXms, reset, 500, 502, 503, code30, truncated, stall')
      .option('--fault-seed <n>', 'seed of the fault draw (default 1)')
      .option('--seed <file>', 'start with the keys, senders, links, campaigns and messages of a seed file (YAML or JSON), and return to them on reset')
      .option('--no-inspector', 'no web inspector at / (the control API under /_emulator/ stays)')
      .option('--control-token <token>', 'needed by the inspector and control API (default SMSLINK_CONTROL_TOKEN); they are off on a non-loopback --host without it')
      .option('--cors <origin>', 'let the web pages of this origin (e.g. http://localhost:3000) call /service/ from a browser; other sites are refused (repeatable)', collect),
  about: `The accepted keys are given with --api-key (repeatable) or a seed file;
without them the key is "sandbox". Keys are shown masked: stars and the last 4
characters of a key of 16 or more. Test numbers pick a message's fate: a
recipient ending in 0000 is REJECTD, 1111 UNDELIV, 2222 EXPIRED, 3333 passes
through PDLIVRD, anything else DELIVRD. Ctrl-C (or SIGTERM) stops accepting,
finishes what is in flight and exits 0.

Each request answered prints one line on stdout: the emulator's time, the
operation (or the short link visited), the result code, milliseconds and the
key masked, e.g. "2025-01-15 10:00:02  Link/Create  code 0  1.2 ms  key
********0000". --quiet (-q) turns these lines off.

The web inspector is at the root URL: messages as conversations per number,
links with their clicks, campaigns, accounts, the request log (each request
opens to its parameters and answer; filter by operation and code) and
controls, updated live. The control API for tests: GET /_emulator/messages, POST
/_emulator/reset, /_emulator/clock {"advance": SECONDS}, /_emulator/deliver
(final statuses now, the clock stays), /_emulator/faults {"rate": P,
"kinds": [...]}. \`smslink serve init\` writes a starter seed file.

It reads requests as the live service does: output and api may be left out,
and an empty optional parameter (from=, data[expirationDate]=) is no
parameter. So public client libraries work against it unchanged: give them
http://127.0.0.1:<port> as their server (mobizon-node:
setConfig({ apiServer, apiKey }); mobizon: the testBaseUrl parameter,
http://127.0.0.1:<port>/service/).`,
  examples: [
  'smslink serve',
  'smslink serve --quiet --port 0',
  'smslink serve init && smslink serve --seed smslink-seed.yaml --db :memory:',
  'smslink serve --port 0 --db :memory: --api-key key-one --api-key key-two',
  'smslink serve --time-scale 60 --sender ACME --block-pattern "casino"',
  'smslink serve --balance 5 --currency USD --price 0.05',
  'smslink serve --fault-rate 0.2 --faults reset,502,code30 --fault-seed 7',
],
  run: (ctx, opts) => serve(ctx, opts),
};
