// The pseudo-terminal helper that terminal tests rely on: the size it is
// asked for, a real terminal on every stream, keystrokes after a prompt, and
// the command's exit code.
import { describe, expect, it } from 'vitest';
import { runInPty, screenText } from './pty.js';

const probe = `
const out = [process.stdin.isTTY, process.stdout.isTTY, process.stderr.isTTY, process.stdout.columns, process.stdout.rows];
process.stdout.write(out.join(' ') + '\\nname? ');
process.stdin.once('data', (d) => { process.stdout.write('hello ' + String(d).trim() + '\\n'); process.exit(3); });
`;

describe('runInPty', () => {
  it('runs a command in a terminal of the given size, types after a prompt and returns its exit code', async () => {
    const r = await runInPty([], {
      columns: 61,
      rows: 17,
      command: [process.execPath, '-e', probe],
      steps: [{ waitFor: 'name? ', write: 'Ada\r' }],
    });
    expect(r.code).toBe(3);
    // The terminal echoes what was typed (cooked mode) and shows \n as \r\n.
    expect(r.output).toContain('true true true 61 17\r\n');
    expect(screenText(r.output)).toBe('true true true 61 17\nname? Ada\nhello Ada\n');
  });

  it('fails with what the terminal showed when the awaited text never comes', async () => {
    // The time limit leaves a busy machine room to start node and show "ready" (it failed at 1.5 s under load); the command outlives it.
    const command = [process.execPath, '-e', 'setTimeout(() => {}, 60_000); console.log("ready")'];
    await expect(runInPty([], { command, steps: [{ waitFor: 'never', write: 'x' }], timeoutMs: 6000 })).rejects.toThrow(
      /timed out waiting for never; the terminal showed:\nready/,
    );
  });
});
