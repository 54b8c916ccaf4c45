// Talks to the emulator's test-control API (/_emulator/..., docs/emulator-reference.md):
// in this process for --sandbox, else over HTTP to the `smslink serve` at the
// base URL, with SMSLINK_CONTROL_TOKEN when serve was given one. Its answers
// are JSON, not the service's envelope; each failure becomes an exit code.

import type { Send } from '../../client/send.js';
import { ConfigError } from '../../client/errors.js';
import type { RunContext } from '../core/context.js';
import { EXIT, ExitError, UsageError } from '../../exit-codes.js';
import { registerSecret } from '../../secrets.js';
import { DEFAULT_URL } from '../../emulator/defaults.js';

export const CONTROL_PATH = '/_emulator/';

export interface ControlAnswer {
  status: number;
  /** The JSON object answered; null when the body is not one (not an emulator). */
  json: Record<string, unknown> | null;
  headers: Record<string, string | string[] | undefined>;
}

/** Why a request got no answer: in words, for the message that names the URL. */
function reasonOf(err: unknown): string {
  const e = err as { code?: string; name?: string; message?: string; cause?: { code?: string } };
  const code = e.code ?? e.cause?.code;
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'no such host';
  if (code === 'ECONNRESET') return 'the connection was reset';
  if (e.name === 'TimeoutError') return 'no answer in time';
  return e.message ?? String(err);
}

/** No answer came (refused, reset, timed out): exit 3, and `reason` in a few words. */
export class Unreachable extends ExitError {
  constructor(
    message: string,
    readonly reason: string,
  ) {
    super(message, EXIT.TRANSPORT);
  }
}

export class EmulatorControl {
  constructor(
    /** The emulator's base URL, without a trailing slash. */
    readonly baseUrl: string,
    private readonly send: Send,
    private readonly headers: Record<string, string>,
    /** Ctrl-C. */
    private readonly signal?: AbortSignal,
  ) {}

  url(route: string): string {
    return `${this.baseUrl}${CONTROL_PATH}${route}`;
  }

  /**
   * One request of `route` (`messages?to=...`); resolves with whatever HTTP
   * status came. No answer within `timeoutMs` (or none at all) is exit 3,
   * Ctrl-C exit 130.
   */
  async request(method: 'GET' | 'POST', route: string, timeoutMs: number, body?: object): Promise<ControlAnswer> {
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = this.signal ? AbortSignal.any([this.signal, timeout]) : timeout;
    const headers = { accept: 'application/json', ...this.headers, ...(body ? { 'content-type': 'application/json' } : {}) };
    try {
      const res = await this.send({ url: this.url(route), method, headers, body: body ? JSON.stringify(body) : undefined }, signal);
      let json: Record<string, unknown> | null = null;
      try {
        const parsed = JSON.parse(res.text) as unknown;
        json = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
      } catch {
        json = null;
      }
      return { status: res.status, json, headers: res.headers };
    } catch (err) {
      if (this.signal?.aborted) throw new ExitError('interrupted', EXIT.INTERRUPTED);
      const why = timeout.aborted ? 'no answer in time' : reasonOf(err);
      throw new Unreachable(`cannot reach the emulator at ${this.baseUrl} (${why}): is \`smslink serve\` running there? (\`smslink serve wait ${this.baseUrl}\` waits for it to start)`, why);
    }
  }

  /** The JSON of a 2xx answer; any other status is the error it means, in the emulator's words. */
  check(answer: ControlAnswer, route: string): Record<string, unknown> {
    const said = typeof answer.json?.error === 'string' ? answer.json.error : undefined;
    if (answer.status >= 200 && answer.status < 300 && answer.json) return answer.json;
    if (said === undefined) {
      throw new ConfigError(
        `${this.url(route.split('?')[0])} answered HTTP ${answer.status}, not the emulator's control API: give --base-url the address \`smslink serve\` printed (or use --sandbox); the live service has no inbox`,
      );
    }
    if (answer.status === 400) throw new UsageError(`the emulator refused it: ${said}`);
    // A 401 is said in the CLI's terms: the token it sends is SMSLINK_CONTROL_TOKEN, not a header the user wrote.
    if (answer.status === 401) {
      throw new ConfigError(
        this.headers.authorization !== undefined
          ? "the emulator's control API refused SMSLINK_CONTROL_TOKEN: it is not the --control-token serve was started with"
          : "the emulator's control API needs its control token: set SMSLINK_CONTROL_TOKEN to the --control-token serve was started with",
      );
    }
    if (answer.status === 403) throw new ConfigError(`the emulator's control API refused the request: ${said}`);
    if (answer.status === 404) throw new ExitError(said, EXIT.NOT_FOUND);
    throw new ExitError(`the emulator answered HTTP ${answer.status}: ${said}`, EXIT.TRANSPORT);
  }
}

/** The control API of the emulator at `baseUrl`, over HTTP (Node's own client: a command sends a request or a few). */
export async function controlAt(ctx: RunContext, baseUrl: string, token?: string): Promise<EmulatorControl> {
  const url = URL.canParse(baseUrl) ? new URL(baseUrl) : undefined;
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) throw new UsageError(`"${baseUrl}" is not an http:// or https:// URL, such as http://127.0.0.1:8080`);
  const { nodeHttpTransport } = await import('../../client/node-http.js');
  const transport = await nodeHttpTransport({ secure: url.protocol === 'https:' });
  ctx.onClose(async () => transport.destroy?.());
  registerSecret(token);
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  return new EmulatorControl(baseUrl.replace(/\/+$/, ''), transport.send, headers, ctx.io.signal);
}

/** The base URL of the emulator this run reaches (the sandbox's address, or --base-url); checked, not opened. */
export async function controlBaseUrl(ctx: RunContext): Promise<string> {
  if (ctx.sandbox) {
    return DEFAULT_URL;
  }
  const baseUrl = ctx.settings().baseUrl.value;
  if (!baseUrl) {
    throw new ConfigError("the inbox is the emulator's: give --base-url the address `smslink serve` printed (or set SMSLINK_BASE_URL), or use --sandbox");
  }
  return baseUrl.replace(/\/+$/, '');
}

/** The control API this run reaches: the sandbox's emulator in this process, or the `serve` at the base URL. */
export async function openControl(ctx: RunContext): Promise<EmulatorControl> {
  if (ctx.sandbox) {
    const { openEmulatorInProcess, sandboxOptions } = await import('../../emulator/index.js');
    const emu = openEmulatorInProcess(sandboxOptions(ctx.env));
    ctx.onClose(() => emu.close());
    return new EmulatorControl(emu.url, emu.send, {}, ctx.io.signal);
  }
  return controlAt(ctx, await controlBaseUrl(ctx), ctx.env.SMSLINK_CONTROL_TOKEN || undefined);
}

/** --dry-run of a control request: what would be sent to the emulator this run reaches; nothing is sent. */
export async function printControlDryRun(ctx: RunContext, method: 'GET' | 'POST', route: string, body?: object): Promise<void> {
  const url = `${await controlBaseUrl(ctx)}${CONTROL_PATH}${route}`;
  const format = ctx.format();
  if (format === 'json' || format === 'ndjson') {
    ctx.stdout.write(`${JSON.stringify({ dryRun: true, method, url, ...(body ? { body } : {}) }, null, format === 'json' ? 2 : undefined)}\n`);
    return;
  }
  const paint = await ctx.paint();
  ctx.stdout.write(`${paint.dim('dry run: nothing was sent')}\n${paint.bold(`${method} ${url}`)}\n${body ? `\nbody: ${JSON.stringify(body)}\n` : ''}`);
}
