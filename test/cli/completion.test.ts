// Completion scripts cover commands, flags and flag values; the bash one is
// exercised in a real bash.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/run-cli.js';

async function script(shell: string): Promise<string> {
  const r = await runCli(['completion', shell]);
  expect(r.code).toBe(0);
  return r.stdout;
}

/** Runs the bash completion function for a command line and returns the candidates. */
function complete(bash: string, words: string[]): string[] {
  const file = join(tempDir(), 'c.bash');
  writeFileSync(file, bash);
  const arr = words.map((w) => `'${w}'`).join(' ');
  const out = execFileSync('bash', ['-c', `source ${file}; COMP_WORDS=(${arr}); COMP_CWORD=${words.length - 1}; _smslink; printf '%s\\n' "\${COMPREPLY[@]}"`], {
    encoding: 'utf8',
  });
  return out.split('\n').filter(Boolean);
}

describe('smslink completion', () => {
  it('bash: nouns, verbs, flags and flag values from the catalog', async () => {
    const bash = await script('bash');
    expect(complete(bash, ['smslink', ''])).toEqual(['link', 'message', 'config', 'login', 'status', 'api', 'serve', 'sandbox', 'completion']);
    expect(complete(bash, ['smslink', 'link', ''])).toEqual(['create', 'get', 'list', 'update', 'delete', 'stats', 'campaign']);
    expect(complete(bash, ['smslink', 'link', 'update', '5', '--no-'])).toEqual(['--no-expiry', '--no-color']);
    expect(complete(bash, ['smslink', 'link', 'create', 'x', '--status', ''])).toEqual(['active', 'inactive', '0', '1']);
    expect(complete(bash, ['smslink', 'link', 'stats', '1', '--type', 'h'])).toEqual(['hourly']);
    expect(complete(bash, ['smslink', 'message', 'list', '--status', 'UN'])).toEqual(['UNDELIV']);
    expect(complete(bash, ['smslink', '-o', 'json', 'message', 'list', '--sort', 'segNum:'])).toEqual(['segNum:asc', 'segNum:desc']);
    expect(complete(bash, ['smslink', 'link', 'list', '-o', 'n'])).toEqual(['ndjson']);
  });

  it('zsh and fish scripts name every command and flag', async () => {
    const zsh = await script('zsh');
    expect(zsh).toContain('source <(smslink completion zsh)');
    expect(zsh).toContain('bashcompinit');
    const fish = await script('fish');
    expect(fish).toContain(`complete -c smslink -n 'test (__smslink_path) = '\\''link'\\''' -a 'create get list update delete stats campaign'`);
    expect(fish).toContain(`complete -c smslink -n 'test (__smslink_path) = '\\''link stats'\\''' -l type -xa 'monthly daily hourly minute'`);
    expect(fish).toContain('-l ca-file -rF');
  });

  it('an unknown shell is a usage error', async () => {
    const r = await runCli(['completion', 'tcsh']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('must be bash, zsh or fish');
  });
});
