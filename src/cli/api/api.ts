// `smslink api <Module/Operation> [key=value]...`: any operation with
// parameters as given, for what the typed commands do not cover (and for
// operations the service adds before smslink knows them).

import { OPERATIONS, findOperation } from '../../catalog/index.js';
import { dataOrThrow } from '../../client/envelope.js';
import { encodeForm } from '../../client/form-encode.js';
import type { CommandDef, CliValues } from '../core/command.js';
import type { RunContext } from '../core/context.js';
import { describeFailure } from '../core/exit.js';
import { readStdin } from '../core/streams.js';
import { EXIT, UsageError, exitCodeOf } from '../../exit-codes.js';
import { didYouMean, fileProblem } from '../../output/words.js';
import { printDryRun } from '../shared/dry-run.js';
import { isKeyName, registerSecret } from '../../secrets.js';

/** The result code of a call the service accepted to carry out later (real-service-notes.md). */
const BACKGROUND_TASK = 100;

/** key=value pairs into form fields, in the order given (ids[]=1 ids[]=2 stays repeated). */
export function parsePairs(pairs: readonly string[]): Array<[string, string]> {
  return pairs.map((pair) => {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(`parameter "${pair}" must be written key=value, e.g. data[fullLink]=https://example.com`);
    return [pair.slice(0, eq), pair.slice(eq + 1)];
  });
}

async function readInput(ctx: RunContext, file: string): Promise<Record<string, unknown>> {
  const { readFile } = await import('node:fs/promises');
  let text: string;
  try {
    text = file === '-' ? await readStdin(ctx.io) : await readFile(file, 'utf8');
  } catch (err) {
    if (exitCodeOf(err) === EXIT.INTERRUPTED) throw err;
    throw new UsageError(fileProblem('--input', file, err));
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new UsageError(`--input: "${file}" is not JSON`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new UsageError('--input must hold a JSON object of parameters');
  return parsed as Record<string, unknown>;
}

async function call(ctx: RunContext, path: string, pairs: string[], opts: CliValues): Promise<number> {
  if (!/^[A-Za-z][\w-]*\/[A-Za-z][\w-]*$/.test(path)) throw new UsageError(`operation "${path}" must be written Module/Operation, e.g. Link/Get or link/getStats`);
  const op = findOperation(path);
  if (!op) {
    // A slip (Link/Gett) is said as every typo is; an operation the service added since is sent all the same.
    const near = didYouMean(path, OPERATIONS.map((o) => `${o.module}/${o.operation}`));
    await ctx.warn(`${path} is not an operation smslink knows${near ? ` (did you mean ${near}?)` : ''}; sending it as given (it is not retried on failure)`);
  }
  const input = typeof opts.input === 'string' ? encodeForm(await readInput(ctx, opts.input), 'indices') : '';
  const parts = [input, ...parsePairs(pairs).map(([k, v]) => encodeForm({ [k]: v }))].filter(Boolean);
  const client = await ctx.client();
  const req = client.prepareRaw(path, parts.join('&'));
  // A key sent as a parameter (apiKey=..., APIKEY=..., apiKey[]=...) is a secret as --api-key is: never shown.
  for (const [name, value] of req.fields) if (isKeyName(name)) registerSecret(value);
  if (ctx.globals.dryRun) return (await printDryRun(ctx, [req]), EXIT.OK);
  const envelope = await client.execute(req, op?.idempotent ?? false);
  // Code 100 is not an error: the service took the call as a background task, and data is its id.
  const done = envelope.code === 0 || envelope.code === BACKGROUND_TASK;
  // The data is printed on success; --envelope prints the envelope whatever the code.
  if (opts.envelope || done) ctx.stdout.write(`${JSON.stringify(opts.envelope ? envelope : envelope.data, null, 2)}\n`);
  if (envelope.code === BACKGROUND_TASK) ctx.note(`${path}: accepted as a background task (code 100); the data is its task id`);
  if (done) return EXIT.OK;
  try {
    dataOrThrow(path, envelope);
  } catch (err) {
    const failure = describeFailure(err);
    ctx.note(`error: ${failure.message}`);
    return failure.code;
  }
  return EXIT.API;
}

export const API: CommandDef = {
  path: ['api'],
  summary: 'Call any operation with parameters as given and print its data as JSON',
  flags: (cmd) =>
    cmd
      .argument('<operation>', 'Module/Operation, either spelling: Link/GetStats or link/getStats')
      .argument('[params...]', 'key=value pairs with bracket keys as the service expects')
      .option('--input <file>', 'JSON object of parameters (- for stdin)')
      .option('--envelope', 'print the whole {code, data, message} envelope'),
  about: `Settings, --verbose and --dry-run work as for every command. Operations
smslink does not know are passed through with a warning (and never retried).
The exit code follows the service's result code, as for every command.`,
  examples: [
  'smslink api Link/Get id=417863',
  "smslink api link/create 'data[fullLink]=https://example.com' 'data[comment]=raw call'",
  "smslink api Link/GetStats 'ids[]=1' 'ids[]=2' type=daily --envelope",
  'smslink api Message/List --input criteria.json',
  'smslink api User/GetOwnBalance',
],
  run: (ctx, opts, [path, pairs]) => call(ctx, path as string, (pairs as string[] | undefined) ?? [], opts),
};
