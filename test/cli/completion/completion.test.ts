// Completion scripts cover commands, flags and flag values; the bash one is
// exercised in a real bash.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { binEnv, runCli, tempDir } from '../../helpers/run-cli.js';

async function script(shell: string): Promise<string> {
  const r = await runCli(['completion', shell]);
  expect(r.code).toBe(0);
  return r.stdout;
}

const BIN = fileURLToPath(new URL('../../../bin/smslink.js', import.meta.url));

/**
 * Runs the bash completion function for each command line, in one bash, and
 * returns the candidates of each. `smslink` is the real bin (profile names
 * are read from it when Tab is pressed), with the config store in `configDir`.
 */
function completeEach(bash: string, lines: string[][], configDir = tempDir()): string[][] {
  const file = join(tempDir(), 'c.bash');
  writeFileSync(file, bash);
  const smslink = `smslink() { '${process.execPath}' '${BIN}' "$@"; }`;
  const runs = lines.map((words) => `COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; COMPREPLY=(); _smslink; echo "\${COMPREPLY[*]}"`);
  const out = execFileSync('bash', ['-c', [smslink, `source ${file}`, ...runs].join('\n')], {
    encoding: 'utf8',
    env: binEnv({ SMSLINK_CONFIG_DIR: configDir }),
  });
  return out.split('\n').slice(0, lines.length).map((line) => line.split(' ').filter(Boolean));
}

function complete(bash: string, words: string[], configDir?: string): string[] {
  return completeEach(bash, [words], configDir)[0];
}

/**
 * What bash offers for `words` in `cwd`, each candidate as inserted and as
 * the shell then reads it (eval of the inserted text, as pressing Enter would).
 */
function offered(bash: string, words: string[], configDir: string, cwd: string): Array<{ inserted: string; read: string }> {
  const file = join(tempDir(), 'c.bash');
  writeFileSync(file, bash);
  const script = [
    `smslink() { '${process.execPath}' '${BIN}' "$@"; }`,
    `source ${file}`,
    `COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; COMPREPLY=(); _smslink`,
    `for c in "\${COMPREPLY[@]}"; do printf '%s\\0' "$c"; eval "printf '%s\\0' $c"; done`,
  ].join('\n');
  const out = execFileSync('bash', ['-c', script], { encoding: 'utf8', cwd, env: binEnv({ SMSLINK_CONFIG_DIR: configDir }) }).split('\0').slice(0, -1);
  return out.flatMap((inserted, i) => (i % 2 === 0 ? [{ inserted, read: out[i + 1] }] : []));
}

describe('smslink completion', () => {
  it('bash: nouns, verbs, flags and flag values from the catalog', async () => {
    const bash = await script('bash');
    const cases: Array<[string[], string[]]> = [
      [['smslink', ''], ['link', 'message', 'balance', 'sync', 'report', 'search', 'config', 'login', 'status', 'completion', 'serve', 'inbox', 'sandbox', 'api', 'help']],
      [['smslink', 'link', ''], ['create', 'get', 'list', 'update', 'delete', 'stats', 'campaign']],
      [['smslink', 'link', 'update', '5', '--no-'], ['--no-expiry', '--no-color', '--no-pager']],
      [['smslink', 'link', 'create', 'x', '--status', ''], ['active', 'inactive', '0', '1']],
      [['smslink', 'link', 'stats', '1', '--type', 'h'], ['hourly']],
      [['smslink', 'message', 'list', '--status', 'UN'], ['UNDELIV']],
      [['smslink', '-o', 'json', 'message', 'list', '--sort', 'segNum:'], ['segNum:asc', 'segNum:desc']],
      [['smslink', 'link', 'list', '-o', 'n'], ['ndjson']],
    ];
    expect(completeEach(bash, cases.map(([words]) => words))).toEqual(cases.map(([, expected]) => expected));
  });

  it('bash: setting names, profile names from the config store, and never subcommands as a flag value', async () => {
    const bash = await script('bash');
    const names = ['api-key', 'base-url', 'output', 'timeout', 'sender', 'retries'];
    const configDir = tempDir();
    for (const profile of ['staging', 'prod']) {
      await runCli(['--profile', profile, 'config', 'set', 'base-url', 'https://api.example.com'], { env: { SMSLINK_CONFIG_DIR: configDir } });
    }
    const cases: Array<[string[], string[]]> = [
      [['smslink', 'config', 'set', ''], names],
      [['smslink', 'config', 'get', 'b'], ['base-url']],
      [['smslink', '--profile', 'x', 'config', 'unset', 'o'], ['output']],
      // The value of a setting is not a setting name.
      [['smslink', 'config', 'set', 'output', ''], []],
      [['smslink', 'config', 'use', ''], ['staging', 'prod']],
      [['smslink', '--profile', 'p'], ['prod']],
      [['smslink', 'link', 'list', '--profile', ''], ['staging', 'prod']],
      // A flag that takes a value the catalog does not know offers nothing; after its value, the command goes on.
      [['smslink', 'link', 'list', '--query', ''], []],
      [['smslink', '--base-url', 'link', ''], ['link', 'message', 'balance', 'sync', 'report', 'search', 'config', 'login', 'status', 'completion', 'serve', 'inbox', 'sandbox', 'api', 'help']],
      [['smslink', '--profile', 'prod', 'link', 'd'], ['delete']],
      [['smslink', 'link', 'delete', '5', '--y'], ['--yes']],
    ];
    expect(completeEach(bash, cases.map(([words]) => words), configDir)).toEqual(cases.map(([, expected]) => expected));
    // No config store yet: no profiles, and no subcommand names either.
    expect(complete(bash, ['smslink', '--profile', ''])).toEqual([]);
  });

  it('bash: a profile or file name is offered quoted and never run, whatever it holds', async () => {
    const bash = await script('bash');
    const cwd = tempDir();
    const configDir = join(tempDir(), 'cfg');
    mkdirSync(configDir, { mode: 0o700 });
    // Names saved before profile names were limited, and files anyone can name.
    const odd = ['$(touch pwned-1)', '`touch pwned-2`', 'two words', "it's;touch pwned-3", '$HOME'];
    writeFileSync(join(configDir, 'config.json'), JSON.stringify({ profiles: Object.fromEntries([['staging', {}], ...odd.map((n) => [n, {}])]) }), { mode: 0o600 });
    for (const name of ['$(touch pwned-4).csv', 'my rows.csv']) writeFileSync(join(cwd, name), 'fullLink\n');
    const profiles = offered(bash, ['smslink', '--profile', ''], configDir, cwd);
    expect(profiles.map((c) => c.read)).toEqual(['staging', ...odd]);
    expect(profiles.find((c) => c.read === '$(touch pwned-1)')!.inserted).toBe('\\$\\(touch\\ pwned-1\\)');
    expect(offered(bash, ['smslink', 'config', 'use', '$'], configDir, cwd).map((c) => c.read)).toEqual(['$(touch pwned-1)', '$HOME']);
    const files = offered(bash, ['smslink', 'link', 'create', '--from-file', ''], configDir, cwd);
    expect(files.map((c) => c.read).sort()).toEqual(['$(touch pwned-4).csv', 'my rows.csv']);
    expect(files.find((c) => c.read === 'my rows.csv')!.inserted).toBe('my\\ rows.csv');
    // Tab, then Enter on what was inserted: nothing ran.
    expect(readdirSync(cwd).filter((f) => f.startsWith('pwned'))).toEqual([]);
    expect(existsSync(join(cwd, 'pwned-1'))).toBe(false);
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
    expect(r.stderr).toContain('<shell>: invalid value "tcsh": must be one of bash, zsh, fish');
  });
});
