// Completion scripts cover commands, flags and flag values; the bash one is
// exercised in a real bash.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { binEnv, runCli, tempDir } from '../helpers/run-cli.js';

async function script(shell: string): Promise<string> {
  const r = await runCli(['completion', shell]);
  expect(r.code).toBe(0);
  return r.stdout;
}

const BIN = fileURLToPath(new URL('../../bin/smslink.js', import.meta.url));

/**
 * Runs the bash completion function for a command line and returns the
 * candidates. `smslink` is the real bin (profile names are read from it when
 * Tab is pressed), with the config store in `configDir`.
 */
function complete(bash: string, words: string[], configDir = tempDir()): string[] {
  const file = join(tempDir(), 'c.bash');
  writeFileSync(file, bash);
  const arr = words.map((w) => `'${w}'`).join(' ');
  const smslink = `smslink() { '${process.execPath}' '${BIN}' "$@"; }`;
  const out = execFileSync('bash', ['-c', `${smslink}; source ${file}; COMP_WORDS=(${arr}); COMP_CWORD=${words.length - 1}; _smslink; printf '%s\\n' "\${COMPREPLY[@]}"`], {
    encoding: 'utf8',
    env: binEnv({ SMSLINK_CONFIG_DIR: configDir }),
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

  it('bash: setting names, profile names from the config store, and never subcommands as a flag value', async () => {
    const bash = await script('bash');
    const names = ['api-key', 'base-url', 'output', 'timeout', 'sender', 'retries'];
    expect(complete(bash, ['smslink', 'config', 'set', ''])).toEqual(names);
    expect(complete(bash, ['smslink', 'config', 'get', 'b'])).toEqual(['base-url']);
    expect(complete(bash, ['smslink', '--profile', 'x', 'config', 'unset', 'o'])).toEqual(['output']);
    // The value of a setting is not a setting name.
    expect(complete(bash, ['smslink', 'config', 'set', 'output', ''])).toEqual([]);

    const configDir = tempDir();
    for (const profile of ['staging', 'prod']) {
      await runCli(['--profile', profile, 'config', 'set', 'base-url', 'https://api.example.com'], { env: { SMSLINK_CONFIG_DIR: configDir } });
    }
    expect(complete(bash, ['smslink', 'config', 'use', ''], configDir)).toEqual(['staging', 'prod']);
    expect(complete(bash, ['smslink', '--profile', 'p'], configDir)).toEqual(['prod']);
    expect(complete(bash, ['smslink', 'link', 'list', '--profile', ''], configDir)).toEqual(['staging', 'prod']);
    // No store yet: no profiles, and no subcommand names either.
    expect(complete(bash, ['smslink', '--profile', ''])).toEqual([]);

    // A flag that takes a value the catalog does not know offers nothing; after its value, the command goes on.
    expect(complete(bash, ['smslink', 'link', 'list', '--query', ''])).toEqual([]);
    expect(complete(bash, ['smslink', '--base-url', 'link', ''])).toEqual(['link', 'message', 'config', 'login', 'status', 'api', 'serve', 'sandbox', 'completion']);
    expect(complete(bash, ['smslink', '--profile', 'prod', 'link', 'd'], configDir)).toEqual(['delete']);
    expect(complete(bash, ['smslink', 'link', 'delete', '5', '--y'])).toEqual(['--yes']);
  });

  it('zsh and fish scripts name every command and flag', async () => {
    const zsh = await script('zsh');
    expect(zsh).toContain('source <(smslink completion zsh)');
    expect(zsh).toContain('bashcompinit');
    // zsh runs the bash functions, and ties a variable named path to PATH: one would hide smslink itself.
    expect(zsh).not.toMatch(/\b(local|typeset)\b[^\n]*\bpath\b/);
    const fish = await script('fish');
    expect(fish).toContain(`complete -c smslink -n '__smslink_at '\\''link'\\'' 0' -a 'create get list update delete stats campaign'`);
    expect(fish).toContain(`complete -c smslink -n 'test (__smslink_where)[1] = '\\''link stats'\\''' -l type -xa 'monthly daily hourly minute'`);
    expect(fish).toContain('-l ca-file -rF');
    // Setting names, profiles read when Tab is pressed, and nothing but a value after a flag that takes one.
    expect(fish).toContain(`complete -c smslink -n '__smslink_at '\\''config set'\\'' 0' -xa 'api-key base-url output timeout sender retries'`);
    expect(fish).toContain(`complete -c smslink -n '__smslink_at '\\''config use'\\'' 0' -xa '(smslink config profiles -q 2>/dev/null)'`);
    expect(fish).toMatch(/-l profile -xa '\(smslink config profiles -q 2>\/dev\/null\)'\n/);
    expect(fish).toMatch(/'link list'\\''' -l query -x\n/);
  });

  it('an unknown shell is a usage error', async () => {
    const r = await runCli(['completion', 'tcsh']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('must be bash, zsh or fish');
  });
});
