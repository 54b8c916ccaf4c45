// `smslink status`, as `gh auth status`: the profile, base URL and key in use
// and where each comes from (the key masked), whether the service accepts
// the key (one cheap call, key-check.ts), and the balance. Exit 0 when it
// does, 4 when it refuses it or nothing is configured, 3 when unreachable.

import { maskKey } from '../../config/resolve.js';
import { painter } from '../../output/color.js';
import type { CommandDef } from '../core/command.js';
import type { RunContext } from '../core/context.js';
import { EXIT, UsageError } from '../../exit-codes.js';
import { renderRows } from '../../output/format.js';
import { checkKey, CHECK_OPERATION, type KeyCheck } from './key-check.js';
import { readBalance } from '../shared/balance.js';
import { elapsed, money } from '../../output/words.js';
import { describeFailure } from '../core/exit.js';

const NOT_SET = 'not set';

/** What is missing for a check, with what to do; undefined when a check can be made. */
function missing(ctx: RunContext): string | undefined {
  if (ctx.sandbox) return undefined;
  const settings = ctx.settings();
  const noProfile = ctx.missingProfile();
  if (noProfile) return noProfile;
  const lacking = [!settings.baseUrl.value && 'base URL', !settings.apiKey.value && 'API key'].filter(Boolean);
  if (!lacking.length) return undefined;
  return `no ${lacking.join(' and no ')}: run \`smslink login\` to set ${lacking.length > 1 ? 'them' : 'it'} (or set SMSLINK_BASE_URL and SMSLINK_API_KEY), or use --sandbox`;
}

interface Report {
  profile: string | undefined;
  profileSource: string;
  /** Whether --sandbox (or SMSLINK_SANDBOX) sends everything to the local emulator; then `database` is its file. */
  sandbox: boolean;
  database?: string;
  baseUrl: string | null;
  baseUrlSource: string;
  /** Masked. */
  apiKey: string | null;
  apiKeySource: string;
  keyAccepted: boolean;
  /** The service refused the key; both false when it was not asked, not reached or failed otherwise (`problem` says). */
  keyRefused: boolean;
  /** The call that asked the service, when it answered. */
  checkedWith: string | null;
  ms: number | null;
  problem: string | null;
  /** The balance (User/GetOwnBalance) once the key is accepted; null when it could not be read (`balanceProblem` says why). */
  balance: number | null;
  currency: string | null;
  balanceProblem: string | null;
}

type BalanceLine = Pick<Report, 'balance' | 'currency' | 'balanceProblem'>;

/** The balance beside an accepted key: a key that may not read it (or a service that fails) leaves it unknown, not the run failed. */
async function balanceOf(ctx: RunContext, check: KeyCheck | undefined): Promise<BalanceLine> {
  if (!check?.accepted) return { balance: null, currency: null, balanceProblem: null };
  try {
    const { balance, currency } = await readBalance(await ctx.client());
    return { balance, currency, balanceProblem: null };
  } catch (err) {
    return { balance: null, currency: null, balanceProblem: describeFailure(err).message };
  }
}

async function reportOf(ctx: RunContext, lacking: string | undefined, check: KeyCheck | undefined): Promise<Report> {
  const settings = ctx.settings();
  const profile = { profile: settings.profile.value, profileSource: settings.profile.origin };
  const result = {
    keyAccepted: check?.accepted ?? false,
    keyRefused: check?.refused ?? false,
    checkedWith: check?.serviceCode !== undefined ? CHECK_OPERATION : null,
    ms: check?.serviceCode !== undefined ? check.ms : null,
    problem: lacking ?? check?.problem ?? null,
    ...(await balanceOf(ctx, check)),
  };
  const sandbox = ctx.sandboxOrigin;
  if (sandbox) {
    const { sandboxDbPath } = await import('../../emulator/sandbox.js');
    const where = { database: sandboxDbPath(ctx.env), baseUrl: null, baseUrlSource: sandbox, apiKey: null, apiKeySource: sandbox };
    return { ...profile, sandbox: true, ...where, ...result };
  }
  const { baseUrl, apiKey } = settings;
  return {
    ...profile,
    sandbox: false,
    baseUrl: baseUrl.value ?? null,
    baseUrlSource: baseUrl.value ? baseUrl.origin : NOT_SET,
    apiKey: apiKey.value ? maskKey(apiKey.value) : null,
    apiKeySource: apiKey.value ? apiKey.origin : NOT_SET,
    ...result,
  };
}

async function status(ctx: RunContext): Promise<number> {
  const lacking = missing(ctx);
  const check = lacking ? undefined : await checkKey(() => ctx.client());
  const code = check?.code ?? EXIT.CONFIG;
  // -q: the exit code is the answer.
  if (ctx.globals.quiet) return code;
  const report = await reportOf(ctx, lacking, check);
  await show(ctx, report);
  if (report.problem) {
    const paint = await painter(ctx.colorFor(ctx.io.stderr));
    ctx.note(`${paint.red('error:')} ${report.problem}`);
  }
  return code;
}

async function show(ctx: RunContext, report: Report): Promise<void> {
  const format = ctx.format();
  if (format === 'json' || format === 'ndjson') {
    ctx.stdout.write(`${JSON.stringify(report, null, format === 'json' ? 2 : undefined)}\n`);
    return;
  }
  const service = report.keyAccepted ? 'key accepted' : report.keyRefused ? 'key not accepted' : 'not checked';
  const rows = [
    { setting: 'profile', value: report.profile ?? '', source: report.profileSource },
    { setting: 'base-url', value: report.sandbox ? `local emulator (${report.database})` : (report.baseUrl ?? ''), source: report.baseUrlSource },
    { setting: 'api-key', value: report.sandbox ? 'the sandbox key' : (report.apiKey ?? ''), source: report.apiKeySource },
    { setting: 'service', value: service, source: report.checkedWith ? `${report.checkedWith}, ${elapsed(report.ms ?? 0)}` : '' },
  ];
  if (report.balance !== null) rows.push({ setting: 'balance', value: money(report.balance, report.currency ?? ''), source: 'User/GetOwnBalance' });
  else if (report.balanceProblem) rows.push({ setting: 'balance', value: 'unknown', source: report.balanceProblem.split('\n')[0] });
  await renderRows(ctx.stdout, await ctx.view({ output: { rows: 'array', columns: ['setting', 'value', 'source'], primary: 'value' } }), rows);
}

export const STATUS: CommandDef = {
  path: ['status'],
  summary: 'Show the profile, base URL and API key in use, and whether the service accepts the key',
  // `smslink status 123456` is someone after a message's status: say where it is.
  flags: (cmd) => cmd.allowExcessArguments(true),
  about: `Like \`gh auth status\`. Shows where each setting comes from (flag,
environment, profile), the key masked, and checks the key with one call
(Message/GetSMSStatus of one id), then shows the balance (User/GetOwnBalance;
a balance it cannot read is shown as unknown, with why, and changes nothing).
-o json gives the same as an object; -q prints nothing, reads no balance and
leaves the answer to the exit code: 0 accepted, 4 refused or not configured,
3 service unreachable. \`smslink balance --min\` checks the money. For a
message's delivery status, see \`smslink message status <id>\`.`,
  examples: ['smslink status', 'smslink --profile staging status', 'smslink status -o json', 'smslink status -q && echo ready'],
  run(ctx, _opts, _args, cmd) {
    if (cmd.args.length) throw new UsageError(`status takes no arguments; for the delivery status of a message, run \`smslink message status ${cmd.args.join(' ')}\``);
    return status(ctx);
  },
};
