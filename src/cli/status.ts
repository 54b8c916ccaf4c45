// `smslink status`, as `gh auth status`: the profile, base URL and key in use
// and where each comes from (the key masked), and whether the service
// accepts the key (one cheap call, src/cli/key-check.ts). Exit 0 when it
// does, 4 when it refuses it or nothing is configured, 3 when unreachable.

import { maskKey } from '../config/resolve.js';
import { painter } from '../output/color.js';
import type { RunContext } from './context.js';
import { EXIT } from './exit.js';
import { checkKey, CHECK_OPERATION, type KeyCheck } from './key-check.js';

const NOT_SET = 'not set';

/** What is missing for a check, with what to do; undefined when a check can be made. */
function missing(ctx: RunContext): string | undefined {
  if (ctx.sandbox) return undefined;
  const settings = ctx.settings();
  const lacking = [!settings.baseUrl.value && 'base URL', !settings.apiKey.value && 'API key'].filter(Boolean);
  if (!lacking.length) return undefined;
  return `no ${lacking.join(' and no ')}: run \`smslink login\` to set ${lacking.length > 1 ? 'them' : 'it'} (or set SMSLINK_BASE_URL and SMSLINK_API_KEY), or use --sandbox`;
}

export async function status(ctx: RunContext): Promise<number> {
  const settings = ctx.settings();
  const lacking = missing(ctx);
  const check: KeyCheck | undefined = lacking ? undefined : await checkKey(() => ctx.client());
  let sandboxPath: string | undefined;
  if (ctx.sandbox) sandboxPath = (await import('../emulator/sandbox.js')).sandboxDbPath(ctx.env);
  const key = settings.apiKey.value;
  const report = {
    profile: settings.profile.value,
    profileSource: settings.profile.origin,
    sandbox: ctx.sandbox,
    baseUrl: ctx.sandbox ? null : (settings.baseUrl.value ?? null),
    baseUrlSource: ctx.sandbox ? '--sandbox' : settings.baseUrl.value ? settings.baseUrl.origin : NOT_SET,
    apiKey: ctx.sandbox ? null : key ? maskKey(key) : null,
    apiKeySource: ctx.sandbox ? '--sandbox' : key ? settings.apiKey.origin : NOT_SET,
    keyAccepted: check?.accepted ?? false,
    checkedWith: check ? CHECK_OPERATION : null,
    ms: check?.ms ?? null,
    problem: lacking ?? check?.problem ?? null,
  };
  const code = lacking ? EXIT.CONFIG : check!.code;
  if (ctx.globals.quiet) return code;
  await show(ctx, report, check, sandboxPath);
  if (report.problem) {
    const paint = await painter(ctx.colorFor(ctx.io.stderr));
    ctx.note(`${paint.red('error:')} ${report.problem}`);
  }
  return code;
}

type Report = Record<string, unknown> & { profile?: string; profileSource: string; baseUrl: string | null; baseUrlSource: string; apiKey: string | null; apiKeySource: string };

async function show(ctx: RunContext, report: Report, check: KeyCheck | undefined, sandboxPath: string | undefined): Promise<void> {
  const format = ctx.format();
  if (format === 'json' || format === 'ndjson') {
    ctx.stdout.write(`${JSON.stringify(report, null, format === 'json' ? 2 : undefined)}\n`);
    return;
  }
  const service = check?.accepted ? 'key accepted' : check ? 'key not accepted' : 'not checked';
  const rows = [
    { setting: 'profile', value: report.profile ?? '', source: report.profileSource },
    { setting: 'base-url', value: ctx.sandbox ? `local emulator (${sandboxPath})` : (report.baseUrl ?? ''), source: report.baseUrlSource },
    { setting: 'api-key', value: ctx.sandbox ? 'the sandbox key' : (report.apiKey ?? ''), source: report.apiKeySource },
    { setting: 'service', value: service, source: check ? `${CHECK_OPERATION}, ${check.ms} ms` : '' },
  ];
  const { renderRows } = await import('../output/format.js');
  await renderRows(ctx.stdout, await ctx.view({ output: { rows: 'array', columns: ['setting', 'value', 'source'], primary: 'value' } }), rows);
}
