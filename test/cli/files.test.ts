// One rule for every file smslink reads or writes: one that is not there, is
// a folder, is no regular file, or lies under a file is said in words by
// words.ts fileProblem(), naming the flag and the path, never in Node's
// (ENOENT: no such file or directory, stat ...), and nothing is done.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileProblem } from '../../src/output/words.js';
import { runCli, tempDir } from '../helpers/run-cli.js';

const dir = tempDir();
const missing = (name: string) => join(dir, 'missing', '..', `no-${name}`);
const aFile = join(dir, 'a-file.txt');
writeFileSync(aFile, 'not a folder\n');
const aFolder = join(dir, 'a-folder');
mkdirSync(aFolder);
const rows = join(dir, 'rows.csv');
writeFileSync(rows, 'recipient,text\n77010000001,Hi\n');
const fifo = join(dir, 'rows-fifo.csv');
execFileSync('mkfifo', [fifo]);
/** A config folder whose config.json is a folder. */
const configDir = join(dir, 'config');
mkdirSync(join(configDir, 'config.json'), { recursive: true });

const ENOENT = { code: 'ENOENT' };
const EISDIR = { code: 'EISDIR' };
const ENOTDIR = { code: 'ENOTDIR' };

interface Case {
  args: string[];
  env?: Record<string, string>;
  code: number;
  said: string;
}

const CASES: Record<string, Case> = {
  'bulk --from-file, missing': {
    args: ['--sandbox', 'message', 'send', '--from-file', missing('rows.csv')],
    code: 2,
    said: fileProblem('--from-file', missing('rows.csv'), ENOENT),
  },
  'bulk --from-file, a folder': { args: ['--sandbox', 'link', 'create', '--from-file', aFolder, '--format', 'csv'], code: 2, said: fileProblem('--from-file', aFolder, EISDIR) },
  'bulk --from-file, a named pipe': { args: ['--sandbox', 'message', 'send', '--from-file', fifo], code: 2, said: fileProblem('--from-file', fifo, { code: 'ENOTFILE' }) },
  'bulk --from-file, under a file': {
    args: ['--sandbox', 'message', 'send', '--from-file', join(aFile, 'rows.csv')],
    code: 2,
    said: fileProblem('--from-file', join(aFile, 'rows.csv'), ENOTDIR),
  },
  'bulk --journal, in a folder that is not there': {
    args: ['--sandbox', 'message', 'send', '--from-file', rows, '--journal', join(dir, 'no-folder', 'run.journal')],
    code: 2,
    said: fileProblem('--journal', join(dir, 'no-folder', 'run.journal'), ENOENT, 'write'),
  },
  'bulk --journal, a folder': { args: ['--sandbox', 'message', 'send', '--from-file', rows, '--journal', aFolder], code: 2, said: fileProblem('--journal', aFolder, EISDIR, 'write') },
  'api --input': { args: ['--sandbox', 'api', 'Link/List', '--input', missing('params.json')], code: 2, said: fileProblem('--input', missing('params.json'), ENOENT) },
  'serve --seed': { args: ['serve', '--port', '0', '--db', ':memory:', '--seed', missing('seed.yaml')], code: 2, said: `--seed: ${fileProblem('', missing('seed.yaml'), ENOENT)}` },
  'serve --seed, a folder': { args: ['serve', '--port', '0', '--db', ':memory:', '--seed', aFolder], code: 2, said: `--seed: ${fileProblem('', aFolder, EISDIR)}` },
  '--ca-file': {
    args: ['link', 'get', '1', '--ca-file', missing('ca.pem')],
    env: { SMSLINK_BASE_URL: 'https://127.0.0.1:9', SMSLINK_API_KEY: 'FilesKey0123456789' },
    code: 2,
    said: fileProblem('--ca-file', missing('ca.pem'), ENOENT),
  },
  'serve init, under a file': { args: ['serve', 'init', join(aFile, 'seed.yaml')], code: 2, said: fileProblem('serve init', join(aFile, 'seed.yaml'), ENOTDIR, 'write') },
  'the config file, a folder': { args: ['config', 'list'], env: { SMSLINK_CONFIG_DIR: configDir }, code: 4, said: fileProblem('config file', join(configDir, 'config.json'), EISDIR) },
};

describe('a file that cannot be read or written, everywhere a file is named', () => {
  it.each(Object.entries(CASES))('%s: said in words, nothing done', async (_name, c) => {
    const r = await runCli(c.args, { env: c.env });
    expect(r.stderr).toBe(`error: ${c.said}\n`);
    expect(r.code).toBe(c.code);
    expect(r.stdout).toBe('');
    // Node's own words and codes never reach a person.
    expect(r.stderr).not.toMatch(/\bE[A-Z]{3,}\b|no such file or directory|, (stat|open) '/);
  });

  it('says each trouble in words, the system code only where it has none', () => {
    expect(fileProblem('--from-file', 'nonexist.csv', ENOENT)).toBe('--from-file: cannot read "nonexist.csv": there is no such file');
    expect(fileProblem('--journal', 'run.journal', ENOENT, 'write')).toBe('--journal: cannot write "run.journal": its folder does not exist');
    // Not made in the table above: these tests run as root, who may read anything.
    expect(fileProblem('--input', 'p.json', { code: 'EACCES' })).toBe('--input: cannot read "p.json": permission denied: you may not read it');
    expect(fileProblem('--journal', 'j', { code: 'ENOSPC' }, 'write')).toBe('--journal: cannot write "j": the disk is full');
    expect(fileProblem('--input', 'p.json', { code: 'EXDEV' })).toBe('--input: cannot read "p.json": the system refused (EXDEV)');
  });
});
