// `smslink serve init [file]`: writes a commented starter seed file for
// `serve --seed`.

import type { CommandDef } from '../core/command.js';
import type { RunContext } from '../core/context.js';
import { EXIT, UsageError } from '../../exit-codes.js';
import { fileProblem } from '../../output/words.js';

async function init(ctx: RunContext, file: string | undefined, force: boolean): Promise<number> {
  const { writeStarterSeed, DEFAULT_SEED_FILE } = await import('../../emulator/index.js');
  const path = file ?? DEFAULT_SEED_FILE;
  try {
    await writeStarterSeed(path, force);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw new UsageError(`${path} already exists; pass --force to replace it, or name another file`);
    throw new UsageError(fileProblem('serve init', path, err, 'write'));
  }
  ctx.note(`Wrote ${path}. Start the emulator with it: smslink serve --seed ${path}`);
  return EXIT.OK;
}

export const SERVE_INIT: CommandDef = {
  path: ['serve', 'init'],
  summary: 'Write a commented starter seed file for serve --seed',
  flags: (cmd) =>
    cmd.argument('[file]', 'where to write it (default smslink-seed.yaml; a .json name writes JSON, without comments)').option('--force', 'replace the file if it exists'),
  examples: ['smslink serve init', 'smslink serve --seed smslink-seed.yaml', 'smslink serve init fixtures/seed.json --force'],
  run: (ctx, opts, [file]) => init(ctx, file as string | undefined, opts.force === true),
};
