// One rule for every closed set a person types from: a near miss is offered
// (`did you mean country?`), a far one is not, and the value is quoted as
// typed. The catalog's word-valued flags and --sort fields are found by
// reading the catalog; the CLI's own sets are listed below.
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../src/catalog/index.js';
import { runCli, tempDir } from '../helpers/run-cli.js';

/** `contry` for country: one letter left out, after the first. */
const slip = (word: string) => word.slice(0, 2) + word.slice(3);

/** What a command needs besides the flag to run at all. */
const ARGS: Record<string, string[]> = {
  'link create': ['https://example.com/x'],
  'link update': ['5'],
  'link stats': ['5'],
};

const env = { SMSLINK_BASE_URL: 'http://127.0.0.1:1', SMSLINK_API_KEY: 'ClosedSetsKey0123456789' };

/** Each catalog flag that takes words (aliases or a closed list), and --sort, with the first of its words. */
const CATALOG = OPERATIONS.flatMap((op) =>
  op.command === undefined
    ? []
    : op.params.flatMap((p) => {
        const flag = p.cli?.flag?.split(' ')[0];
        const words = p.type === 'sort' ? [...(p.sortFields ?? [])] : [...Object.keys(p.cli?.aliases ?? {}), ...(p.oneOf ?? []).filter((v): v is string => typeof v === 'string')];
        const word = words.find((w) => w.length >= 5);
        return flag && word && p.cli?.boolean === undefined ? [{ path: op.command!.join(' '), flag, word }] : [];
      }),
);

describe('every closed set offers the near miss', () => {
  it('the catalog has word-valued flags and sorts on several commands', () => {
    expect(CATALOG.map((c) => `${c.path} ${c.flag}`)).toEqual(
      expect.arrayContaining(['link list --status', 'link list --sort', 'link stats --type', 'message list --status', 'message list --sort', 'message list --campaign-status']),
    );
  });

  it.each(CATALOG.map((c) => [`${c.path} ${c.flag} ${slip(c.word)}`, c] as const))('%s', async (_name, { path, flag, word }) => {
    const r = await runCli(['--dry-run', ...path.split(' '), ...(ARGS[path] ?? []), flag, slip(word)], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${flag}: invalid value "${slip(word)}" (did you mean ${word}?)`);
  });

  /** The CLI's own sets: the command line, what it should say, the exit code (4: a setting from the environment), more environment. */
  const OWN: Array<[string, string[], string, number?, Record<string, string>?]> = [
    ['a help topic', ['help', 'lnk'], 'help: unknown command or topic "lnk" (did you mean link?)'],
    ['the time topic', ['help', 'tiem'], '(did you mean time?)'],
    ['an output format', ['-o', 'jsn', 'link', 'list'], '--output: invalid value "jsn" (did you mean json?): must be one of table, json, ndjson, csv, tsv'],
    ['an output format from the environment', ['link', 'list'], 'output from SMSLINK_OUTPUT: invalid value "jsn" (did you mean json?)', 4, { SMSLINK_OUTPUT: 'jsn' }],
    ['a grouping', ['report', 'delivery', '--by', 'contry'], '--by: invalid value "contry" (did you mean country?): must be one of day, sender, country, operator'],
    ['a setting', ['config', 'get', 'base-ur'], 'unknown setting "base-ur" (did you mean base-url?)'],
    ['a shell', ['completion', 'bsh'], '<shell>: invalid value "bsh" (did you mean bash?): must be one of bash, zsh, fish'],
    ['a field', ['--sandbox', 'link', 'list', '--fields', 'shortlnk'], '--fields: unknown field "shortlnk" (did you mean shortLink?)'],
  ];

  it.each(OWN)('%s', async (_name, args, said, code = 2, extra = {}) => {
    const r = await runCli(args, { env: { ...env, SMSLINK_DATA_DIR: tempDir(), ...extra } });
    expect(r.code).toBe(code);
    expect(r.stderr).toContain(said);
  });

  it('a profile, wherever one is named: --profile on a command, status, config get and list, config use', async () => {
    const config = tempDir();
    const at = { env: { SMSLINK_CONFIG_DIR: config } };
    expect((await runCli(['--profile', 'staging', 'config', 'set', 'base-url', 'https://staging.example.com'], at)).code).toBe(0);
    const command = await runCli(['--profile', 'stagin', 'link', 'get', '1'], { env: { SMSLINK_CONFIG_DIR: config, SMSLINK_API_KEY: env.SMSLINK_API_KEY } });
    expect(command.code).toBe(4);
    expect(command.stderr).toContain('profile "stagin" (from --profile) does not exist (did you mean staging?)');
    const said = 'profile "stagin" (from --profile) does not exist (did you mean staging?); create it with `smslink --profile stagin login`';
    expect(command.stderr).toContain(said);
    const status = await runCli(['--profile', 'stagin', 'status'], at);
    expect(status.stderr).toContain(said);
    const get = await runCli(['--profile', 'stagin', 'config', 'get', 'base-url'], at);
    expect([get.code, get.stdout]).toEqual([4, '']);
    expect(get.stderr).toContain(said);
    // Listed all the same (flags and the environment still apply), with the warning.
    const list = await runCli(['--profile', 'stagin', 'config', 'list'], at);
    expect(list.code).toBe(0);
    expect(list.stderr).toContain(`warning: ${said}`);
    expect((await runCli(['--profile', 'staging', 'config', 'list'], at)).stderr).not.toContain('warning');
    const use = await runCli(['config', 'use', 'stagin'], at);
    expect(use.code).toBe(2);
    expect(use.stderr).toContain('config use: unknown profile "stagin" (did you mean staging?)');
  });

  it('a bulk file format', async () => {
    const dir = tempDir();
    writeFileSync(`${dir}/links.csv`, 'fullLink\nhttps://example.com/a\n');
    const r = await runCli(['link', 'create', '--from-file', `${dir}/links.csv`, '--format', 'ndjsn'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--format: invalid value "ndjsn" (did you mean ndjson?): must be one of csv, ndjson');
  });

  it('a far miss offers nothing', async () => {
    const r = await runCli(['report', 'delivery', '--by', 'weather'], { env: { ...env, SMSLINK_DATA_DIR: tempDir() } });
    expect(r.stderr).toContain('--by: invalid value "weather": must be one of');
    expect(r.stderr).not.toContain('did you mean');
  });
});
