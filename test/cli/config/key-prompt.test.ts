// `config set api-key` at a real terminal (a pseudo-terminal, test/helpers/pty.ts):
// the key is asked for with nothing echoed and stored; Ctrl-C and an empty
// answer store nothing. Piped stdin keeps working as before (config.test.ts).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KEYS, runInPty, screenText } from '../../helpers/pty.js';
import { tempDir } from '../../helpers/run-cli.js';

const KEY = 'TypedKey0123456789abcdefABCDEF0123456789';
const PROMPT = 'Paste your API key: ';

function configAt() {
  const dir = tempDir();
  return { env: { SMSLINK_CONFIG_DIR: dir }, stored: () => (existsSync(join(dir, 'config.json')) ? readFileSync(join(dir, 'config.json'), 'utf8') : '') };
}

describe('config set api-key at a terminal', () => {
  it('asks with a hidden prompt, stores the key, and names the profile with the key masked', async () => {
    const { env, stored } = configAt();
    const r = await runInPty(['config', 'set', 'api-key'], { env, steps: [{ waitFor: PROMPT, write: `${KEY}${KEYS.enter}` }] });
    expect(r.code).toBe(0);
    // Nothing of the key is echoed: the terminal shows the prompt, then the confirmation with the key masked.
    expect(r.output).not.toContain(KEY);
    expect(r.output).not.toContain(KEY.slice(4, -4));
    // At 80 columns the confirmation breaks at the space before its (temporary, long) path.
    expect(screenText(r.output)).toMatch(/^Paste your API key: \nSaved api-key = \*{8}6789 in profile "default"\s\(.*config\.json\)\.\n$/);
    expect(JSON.parse(stored()).profiles.default.apiKey).toBe(KEY);
  });

  it('`config set api-key -` asks the same way; Backspace edits what was typed, arrow keys are ignored', async () => {
    const { env, stored } = configAt();
    const r = await runInPty(['--profile', 'staging', 'config', 'set', 'api-key', '-'], {
      env,
      steps: [{ waitFor: PROMPT, write: `${KEY}x${KEYS.backspace}\x1b[A${KEYS.enter}` }],
    });
    expect(r.code).toBe(0);
    expect(screenText(r.output)).toContain('in profile "staging"');
    expect(JSON.parse(stored()).profiles.staging.apiKey).toBe(KEY);
  });

  it('Ctrl-C at the prompt exits 130 and writes nothing', async () => {
    const { env, stored } = configAt();
    const r = await runInPty(['config', 'set', 'api-key'], { env, steps: [{ waitFor: PROMPT, write: `${KEY.slice(0, 10)}${KEYS.ctrlC}` }] });
    expect(r.code).toBe(130);
    expect(screenText(r.output)).toContain('interrupted');
    expect(stored()).toBe('');
  });

  it('an empty answer is refused (exit 2) and nothing is written', async () => {
    const { env, stored } = configAt();
    const r = await runInPty(['config', 'set', 'api-key'], { env, steps: [{ waitFor: PROMPT, write: KEYS.enter }] });
    expect(r.code).toBe(2);
    expect(screenText(r.output)).toContain('error: config set api-key: the value is empty; nothing was saved');
    expect(stored()).toBe('');
  });

  it('another setting given as - is asked for on a visible line', async () => {
    const { env, stored } = configAt();
    const r = await runInPty(['config', 'set', 'base-url', '-'], { env, steps: [{ waitFor: 'base-url: ', write: `https://api.example.com${KEYS.enter}` }] });
    expect(r.code).toBe(0);
    // The terminal echoes what was typed on a visible line.
    expect(screenText(r.output)).toContain('base-url: https://api.example.com\n');
    expect(JSON.parse(stored()).profiles.default.baseUrl).toBe('https://api.example.com');
  });
});
