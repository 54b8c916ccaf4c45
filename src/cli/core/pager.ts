// Output longer than the screen goes through a pager on a terminal, as gh
// and git do: $SMSLINK_PAGER, else $PAGER, else `less -FRX`. `--no-pager`,
// or a pager of "" or "cat", prints straight to the terminal.

import { shownLength } from '../../output/text.js';

const DEFAULT = 'less -FRX';

/** The pager command to run, or undefined when paging is off. */
export function pagerCommand(env: Record<string, string | undefined>, flag: boolean): string | undefined {
  if (!flag) return undefined;
  const command = (env.SMSLINK_PAGER ?? env.PAGER ?? DEFAULT).trim();
  return command === '' || command === 'cat' ? undefined : command;
}

/** Screen rows the text takes at `columns` cells a row (lines longer than a row wrap). */
export function screenRows(text: string, columns: number): number {
  let rows = 0;
  for (const line of text.split('\n')) rows += Math.max(1, Math.ceil(shownLength(line) / columns));
  return text.endsWith('\n') ? rows - 1 : rows;
}

/**
 * Runs the pager with the text on its stdin and the terminal as its output,
 * and waits until the person quits it. Resolves false when the pager could
 * not be started (the caller prints the text itself).
 */
export async function runPager(command: string, text: string, env: Record<string, string | undefined>): Promise<boolean> {
  const { spawn } = await import('node:child_process');
  // The default runs without a shell so that a missing `less` is noticed (ENOENT), not printed by sh.
  const [file, args, shell] = command === DEFAULT ? ['less', ['-FRX'], false] : [command, [], true];
  return new Promise((resolve) => {
    const child = spawn(file, args, {
      shell,
      stdio: ['pipe', 'inherit', 'inherit'],
      // less and lv read their options from the environment too, as git sets them.
      env: { ...env, LESS: env.LESS ?? 'FRX', LV: env.LV ?? '-c' },
    });
    let started = true;
    child.on('error', () => {
      started = false;
      resolve(false);
    });
    // A person who quits before reading everything closes the pipe: not an error.
    child.stdin.on('error', () => {});
    child.stdin.end(text);
    child.on('close', () => {
      if (started) resolve(true);
    });
  });
}
