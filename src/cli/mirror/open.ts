// What `sync`, `report` and `search` share: which mirror a run means (the
// service's base URL and the profile, or the sandbox), opening it, and the
// sync itself with its progress bar, so `report --sync` runs the same one.

import type { RunContext } from '../core/context.js';
import type { Mirror, MirrorSource, SyncStep, SyncSummary } from '../../mirror/index.js';
import { ConfigError, ValidationError } from '../../client/errors.js';
import { EXIT, ExitError, UsageError } from '../../exit-codes.js';
import { ago, count } from '../../output/words.js';
import { parseConcurrency, parseCount } from '../shared/ids.js';
import { timeFlag, wallMs } from '../core/time.js';
import { formatDateTime } from '../../catalog/rules.js';
import type { Command } from 'commander';
import { linkList, linkStats } from '../../catalog/link.js';
import { messageList, messageStatus } from '../../catalog/message.js';
import { validateInput } from '../../catalog/validate.js';
import type { CliValues } from '../core/command.js';
import { accountCurrency } from '../shared/currency.js';

/** The mirror a run means: the sandbox is a source of its own; else the base URL and the profile. */
export function mirrorSource(ctx: RunContext): MirrorSource {
  if (ctx.sandbox) return { baseUrl: 'sandbox', profile: 'sandbox' };
  const settings = ctx.settings();
  const baseUrl = settings.baseUrl.value;
  if (!baseUrl) throw new ConfigError('no base URL: the mirror is kept per service; set one with `smslink config set base-url URL` (or --base-url, SMSLINK_BASE_URL)');
  return { baseUrl: baseUrl.replace(/\/+$/, ''), profile: settings.profile.value ?? 'default' };
}

/** Opens the run's mirror; a report or search before any sync is told what to run. */
export async function openMirror(ctx: RunContext, create: boolean): Promise<Mirror> {
  const { Mirror, mirrorPath } = await import('../../mirror/index.js');
  const path = mirrorPath(ctx.env, mirrorSource(ctx));
  const mirror = create ? Mirror.open(path) : Mirror.openExisting(path);
  if (!mirror) throw new UsageError(`${ctx.command}: there is no mirror of this account yet; run \`smslink${ctx.sandbox ? ' --sandbox' : ''} sync\` first`);
  ctx.onClose(async () => mirror.close());
  return mirror;
}

/** Seconds since the mirror's last sync began (what it holds is as of then), or null before a sync has ended. */
export function mirrorAge(ctx: RunContext, mirror: Mirror): number | null {
  const last = mirror.get('last_sync');
  return last === undefined ? null : Math.max(0, Math.round((wallMs(formatDateTime(ctx.now())) - wallMs(last)) / 1000));
}

/**
 * How old what a report or search read is, said after "the mirror": `,
 * synced 3 h 2 min ago (`smslink sync` brings it up to date)`. A mirror
 * only read by reports gets no older on its own, and its statuses (pending,
 * accepted) may have ended long since.
 */
export function mirrorAgeWords(ctx: RunContext, mirror: Mirror): string {
  const sync = `\`smslink${ctx.sandbox ? ' --sandbox' : ''} sync\``;
  const age = mirrorAge(ctx, mirror);
  if (age === null) return `, whose first sync has not ended (${sync} goes on with it)`;
  return age < 60 ? `, synced ${ago(age)}` : `, synced ${ago(age)} (${sync} brings it up to date)`;
}

export interface SyncFlags {
  since?: string;
  concurrency: number;
  rate: number;
}

/** --since, --concurrency and --rate of a sync, checked before anything is sent. */
export function syncFlags(ctx: RunContext, opts: CliValues): SyncFlags {
  return {
    since: typeof opts.since === 'string' ? timeFlag('--since', opts.since, ctx.now(), { fill: 'start' }) : undefined,
    concurrency: parseConcurrency(opts.concurrency),
    rate: opts.rate === undefined ? 0 : parseCount(opts.rate, '--rate', 0, 100_000),
  };
}

/** Runs one sync under the mirror's lock, with a progress bar at a terminal; Ctrl-C keeps what was fetched and exits 130. */
export async function runSync(ctx: RunContext, mirror: Mirror, flags: SyncFlags): Promise<SyncSummary> {
  const { lockMirror, syncMirror } = await import('../../mirror/index.js');
  const lock = lockMirror(mirror.path);
  const client = await ctx.client();
  /**
   * Sync pages messages by id, which the live service sorts by (real-service-notes.md) and the
   * contract does not name: these requests are checked by the catalog's live rules, as the
   * emulator reads requests, where `message list --sort` keeps to the contract.
   */
  const listById = (input: Record<string, unknown>) => {
    const { values, issues } = validateInput(messageList, input, { now: ctx.now(), live: true });
    if (issues.length) throw new ValidationError('Message/List', issues);
    return client.perform(messageList, client.prepareChecked(messageList, values)) as never;
  };
  const service = {
    listMessages: listById,
    messageStatuses: (ids: number[]) => client.call(messageStatus, { ids }) as never,
    listLinks: (input: Record<string, unknown>) => client.call(linkList, input) as never,
    linkStats: (input: Record<string, unknown>) => client.call(linkStats, input),
  };
  // At a terminal, a bar per step; each "row" of the bulk bar is one request of the step.
  const { Progress } = ctx.io.stderr.isTTY === true ? await import('../../bulk/progress.js') : { Progress: undefined };
  let bar: { stop(): void } | undefined;
  let shown: SyncStep | undefined;
  // A step's name stands on the line above its bar while it runs; both go when it ends (the summary tells the rest).
  const endStep = () => {
    if (!bar) return;
    bar.stop();
    ctx.stderr.write('\x1b[1A\x1b[2K');
    bar = undefined;
  };
  const onStep = (s: SyncStep) => {
    if (!Progress || s === shown) return;
    shown = s;
    endStep();
    const progress = new Progress(ctx.stderr, true, () => s.total, () => ({ skipped: 0, done: s.done, failed: 0, unknown: 0, invalid: 0, inFlight: s.inFlight }));
    ctx.stderr.write(`${s.name}:\n`);
    progress.start();
    bar = progress;
  };
  try {
    if (mirror.get('first_done') === '1' && flags.since) await ctx.warn('--since bounds only the first sync; this mirror has had it, so new messages are fetched as always');
    const onRebuild = async (reason: string) => {
      endStep();
      shown = undefined;
      await ctx.warn(`sync: this mirror is not of the account as it is now (${reason}; the account was reset, or its ids were used again): emptied, and filled again`);
    };
    const summary = await syncMirror(mirror, service, { ...flags, signal: ctx.io.signal, now: ctx.now(), onStep, onRebuild });
    // The reports say costs in the account's currency: learnt here, where requests are made anyway.
    await accountCurrency(ctx, { ask: true });
    return summary;
  } catch (err) {
    if (ctx.io.signal?.aborted) {
      const held = mirror.one<{ n: number }>('SELECT count(*) AS n FROM messages').n;
      throw new ExitError(`sync: interrupted; the mirror keeps what was fetched (${count(held, 'message', 'messages')}). Run \`smslink sync\` again to go on.`, EXIT.INTERRUPTED);
    }
    throw err;
  } finally {
    endStep();
    lock.release();
  }
}

/** --concurrency and --rate of a sync (also `report --sync`). */
export function syncOptions(cmd: Command): Command {
  return cmd.option('--concurrency <n>', 'requests in flight (default 4)').option('--rate <n>', 'at most n requests per second');
}
