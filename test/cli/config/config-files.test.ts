// The config file holds the API key and says where requests go: it is the
// user's alone, in a directory of the user's alone. A link, another user's
// file or directory, or one others may write is refused (exit 4, the path
// and the fix named): not read, not written, never handed to its owner.
// The suite runs as root: chown hands a file to another uid (65534, nobody).
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../../helpers/run-cli.js';
import { startRecordingServer, type RecordingServer } from '../../helpers/recording-server.js';

const OTHER = 65534;
const KEY = 'PlantedKey0123456789abcdefABCDEF0123456789';

let server: RecordingServer;
beforeAll(async () => {
  server = await startRecordingServer();
});
afterAll(() => server.close());

/** A config directory holding a profile that sends requests to the recording server: what another user would plant. */
function planted(name = 'cfg'): { dir: string; file: string } {
  const dir = join(tempDir(), name);
  mkdirSync(dir, { mode: 0o700 });
  const file = join(dir, 'config.json');
  writeFileSync(file, JSON.stringify({ profiles: { default: { baseUrl: server.url, apiKey: KEY } } }), { mode: 0o600 });
  return { dir, file };
}

const cli = (dir: string, args: string[], stdin?: string) => runCli(args, { env: { SMSLINK_CONFIG_DIR: dir }, stdin });

/** Each file under dir with its owner, mode and text: what a refused run must leave as it was. */
const contents = (dir: string) =>
  readdirSync(dir).map((name) => {
    const st = lstatSync(join(dir, name));
    return { name, uid: st.uid, mode: st.mode, text: st.isFile() ? readFileSync(join(dir, name), 'utf8') : undefined };
  });

describe('config files', () => {
  it('the same planted file, the user\'s alone, is used (the probe below sees a request when the file is read)', async () => {
    const { dir } = planted();
    const before = server.requests.length;
    expect((await cli(dir, ['link', 'get', '1'])).code).toBe(0);
    expect(server.requests.length).toBe(before + 1);
  });

  it("another user's config file is refused: no request goes where it says, and a save leaves it as it was, theirs", async () => {
    const { dir, file } = planted();
    chownSync(file, OTHER, OTHER);
    const before = server.requests.length;
    const get = await cli(dir, ['link', 'get', '1']);
    expect(get.code).toBe(4);
    expect(get.stderr).toContain(`${file} belongs to another user (uid ${OTHER}); smslink uses only files of your own: move it out of the way`);
    expect(server.requests.length).toBe(before);
    const kept = contents(dir);
    const save = await cli(dir, ['config', 'set', 'api-key', '-'], 'MyOwnKey0123456789abcdef\n');
    expect(save.code).toBe(4);
    expect(save.stderr).toContain(`${file} belongs to another user (uid ${OTHER})`);
    expect(contents(dir)).toEqual(kept);
    expect(statSync(file).uid).toBe(OTHER);
  });

  it("a config directory of another user's is refused: a save writes nothing there", async () => {
    const dir = join(tempDir(), 'cfg');
    mkdirSync(dir, { mode: 0o700 });
    chownSync(dir, OTHER, OTHER);
    const kept = contents(dir);
    const save = await cli(dir, ['config', 'set', 'output', 'csv']);
    expect(save.code).toBe(4);
    expect(save.stderr).toContain(`${dir} belongs to another user (uid ${OTHER})`);
    expect(contents(dir)).toEqual(kept);
  });

  it('a config file or directory others may write is refused, with the chmod that fixes it', async () => {
    const { dir, file } = planted();
    chmodSync(file, 0o620);
    const before = server.requests.length;
    const get = await cli(dir, ['link', 'get', '1']);
    expect(get.code).toBe(4);
    expect(get.stderr).toContain(`${file} may be written by other users (mode 0620); make it yours alone: chmod 600 ${file}`);
    expect(server.requests.length).toBe(before);
    chmodSync(file, 0o600);
    chmodSync(dir, 0o770);
    const save = await cli(dir, ['config', 'set', 'output', 'csv']);
    expect(save.code).toBe(4);
    expect(save.stderr).toContain(`${dir} may be written by other users (mode 0770); make it yours alone: chmod 700 ${dir}`);
    expect(JSON.parse(readFileSync(file, 'utf8'))).not.toHaveProperty('profiles.default.output');
  });

  it('the chmod it gives can be pasted into a shell as it is: a path with a space or a quote is quoted', async () => {
    const { dir, file } = planted("Jo's config");
    chmodSync(file, 0o620);
    const get = await cli(dir, ['link', 'get', '1']);
    expect(get.code).toBe(4);
    expect(get.stderr).toContain(`make it yours alone: chmod 600 '${file.replace("'", "'\\''")}'`);
  });

  it('a config file that is a link is refused: not read, and a save does not write through it', async () => {
    const { dir, file } = planted();
    // A link to a config file of the user's alone: followed, it would be read and written.
    const real = planted().file;
    const text = readFileSync(real, 'utf8');
    rmSync(file);
    symlinkSync(real, file);
    const before = server.requests.length;
    const get = await cli(dir, ['link', 'get', '1']);
    expect(get.code).toBe(4);
    expect(get.stderr).toContain(`${file} is a symbolic link; smslink does not follow links to its own files`);
    expect(server.requests.length).toBe(before);
    const save = await cli(dir, ['config', 'set', 'output', 'csv']);
    expect(save.code).toBe(4);
    expect(readFileSync(real, 'utf8')).toBe(text);
    expect(lstatSync(file).isSymbolicLink()).toBe(true);
  });

  it('a new config directory is not made inside a directory another user owns (they could swap it)', async () => {
    const theirs = join(tempDir(), 'theirs');
    mkdirSync(theirs, { mode: 0o755 });
    chownSync(theirs, OTHER, OTHER);
    const dir = join(theirs, 'smslink');
    const save = await cli(dir, ['config', 'set', 'output', 'csv']);
    expect(save.code).toBe(4);
    expect(save.stderr).toContain(`${theirs} belongs to another user (uid ${OTHER}), who could replace ${dir} in it`);
    expect(existsSync(dir)).toBe(false);
  });
});
