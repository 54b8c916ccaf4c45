// scripts/pack-manifest.mjs, npm pack's prepack and postpack: the packed
// package.json has no "prepare", and the clone's comes back byte for byte,
// even after a pack that failed before its postpack.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, it } from 'vitest';

const SCRIPT = fileURLToPath(new URL('../../scripts/pack-manifest.mjs', import.meta.url));
// Not JSON.stringify's layout: restore must give back the file as it was, not a rewrite of it.
const ORIGINAL = '{\n  "name": "x",\n  "scripts": { "build": "tsc", "prepare": "npm run build" },\n  "files": ["dist"]\n}\n';

let dir: string;
const run = (command: string) => execFileSync(process.execPath, [SCRIPT, command], { cwd: dir, encoding: 'utf8', stdio: 'pipe' });
const manifest = () => readFileSync(join(dir, 'package.json'), 'utf8');
const setUp = (text: string) => {
  dir = mkdtempSync(join(tmpdir(), 'smslink-pack-'));
  writeFileSync(join(dir, 'package.json'), text);
};
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it('strips prepare for the pack and restores the file as it was', () => {
  setUp(ORIGINAL);
  run('strip');
  expect(JSON.parse(manifest())).toEqual({ name: 'x', scripts: { build: 'tsc' }, files: ['dist'] });
  run('restore');
  expect(manifest()).toBe(ORIGINAL);
  expect(existsSync(join(dir, 'node_modules/.cache/smslink/package.json'))).toBe(false);
});

it('after a pack that failed before its postpack, the next pack strips the original and restores it', () => {
  setUp(ORIGINAL);
  run('strip'); // no restore: the pack failed
  run('strip');
  expect(JSON.parse(manifest()).scripts).toEqual({ build: 'tsc' });
  run('restore');
  expect(manifest()).toBe(ORIGINAL);
});

it('leaves a package.json without prepare alone, and a restore with nothing kept does nothing', () => {
  const without = '{ "name": "x" }\n';
  setUp(without);
  run('strip');
  run('restore');
  run('restore');
  expect(manifest()).toBe(without);
});

it('refuses another command with its usage and exit code 2', () => {
  setUp(ORIGINAL);
  let failure: { status?: number; stderr?: string } = {};
  try {
    run('pack');
  } catch (err) {
    failure = err as typeof failure;
  }
  expect(failure).toMatchObject({ status: 2, stderr: expect.stringContaining('usage: node scripts/pack-manifest.mjs strip|restore') });
  expect(manifest()).toBe(ORIGINAL);
});
