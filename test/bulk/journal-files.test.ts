// A journal holds phone numbers and texts, and says which rows were sent: it
// is the user's alone. One that is a link, another user's, or writable by
// others is refused (exit 4, its path and the fix named) before anything is
// read or sent; its tally likewise; no write follows a link planted beside it.
// The suite runs as root: chown hands a file to another uid (65534, nobody).
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/run-cli.js';
import { csvOf, links, useBulkService } from '../helpers/bulk-files.js';

const bulk = useBulkService();
const OTHER = 65534;

/** An input of three links, sent once: its journal records every row as done. */
async function sentOnce(name = 'links.csv') {
  const input = bulk.file(name, csvOf(links(3)));
  const sent = bulk.server.requests.length;
  const first = await runCli(['link', 'create', '--from-file', input], { env: bulk.env });
  expect(first.code).toBe(0);
  expect(bulk.server.requests.length - sent).toBe(3);
  return { input, journal: `${input}.journal` };
}

/** What a refused run must leave as it was: the bytes and times of each file. */
const snapshot = (...paths: string[]) => paths.map((p) => (existsSync(p) ? { p, text: readFileSync(p, 'utf8'), mtime: statSync(p).mtimeMs } : { p }));

describe('journal files', () => {
  it('a new journal and its tally are 0600, also in a shared directory (sticky, as /tmp), and another run resumes from them', async () => {
    const shared = join(tempDir(), 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o1777);
    const input = join(shared, 'links.csv');
    writeFileSync(input, csvOf(links(2)));
    expect((await runCli(['link', 'create', '--from-file', input], { env: bulk.env })).code).toBe(0);
    for (const file of [`${input}.journal`, `${input}.journal.tally`]) {
      expect(statSync(file).mode & 0o777, file).toBe(0o600);
      expect(statSync(file).uid, file).toBe(process.getuid!());
    }
    const again = await runCli(['link', 'create', '--from-file', input], { env: bulk.env });
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('2 already done');
    expect(bulk.server.requests).toHaveLength(2);
    // Nothing but the journal and its tally is left beside the input (no temporary file).
    expect(readdirSync(shared).sort()).toEqual(['links.csv', 'links.csv.journal', 'links.csv.journal.tally']);
  });

  it("another user's journal is refused, so its \"done\" lines cannot hold rows back: exit 4, nothing sent or written", async () => {
    const { input, journal } = await sentOnce();
    chownSync(journal, OTHER, OTHER);
    const before = snapshot(journal, `${journal}.tally`);
    const r = await runCli(['link', 'create', '--from-file', input], { env: bulk.env });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain(`${journal} belongs to another user (uid ${OTHER})`);
    expect(r.stderr).toContain('move it out of the way');
    expect(r.stderr).not.toContain('already done');
    expect(bulk.server.requests).toHaveLength(3);
    expect(snapshot(journal, `${journal}.tally`)).toEqual(before);
  });

  it('a journal others may write is refused, with the chmod that fixes it; after the chmod the run resumes', async () => {
    const { input, journal } = await sentOnce();
    chmodSync(journal, 0o666);
    const before = snapshot(journal, `${journal}.tally`);
    const r = await runCli(['link', 'create', '--from-file', input], { env: bulk.env });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain(`${journal} may be written by other users (mode 0666); make it yours alone: chmod 600 ${journal}`);
    expect(bulk.server.requests).toHaveLength(3);
    expect(snapshot(journal, `${journal}.tally`)).toEqual(before);
    chmodSync(journal, 0o600);
    const fixed = await runCli(['link', 'create', '--from-file', input], { env: bulk.env });
    expect(fixed.code).toBe(0);
    expect(fixed.stderr).toContain('3 already done');
    expect(bulk.server.requests).toHaveLength(3);
  });

  it('a journal that is a link is refused, and the file it points to is neither read nor written', async () => {
    const { journal } = await sentOnce();
    // The link points at a real journal of these rows: followed, it would make the run skip them all.
    const other = bulk.file('other.csv', csvOf(links(3)));
    symlinkSync(journal, `${other}.journal`);
    writeFileSync(`${other}.journal.tally`, readFileSync(`${journal}.tally`));
    const before = snapshot(journal);
    const r = await runCli(['link', 'create', '--from-file', other], { env: bulk.env });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain(`${other}.journal is a symbolic link; smslink does not follow links to its own files`);
    expect(r.stderr).not.toContain('already done');
    expect(bulk.server.requests).toHaveLength(3);
    expect(snapshot(journal)).toEqual(before);
  });

  it("a tally that is another user's or a link is refused as the journal would be, and what the link points to is not written", async () => {
    const owned = await sentOnce('owned.csv');
    chownSync(`${owned.journal}.tally`, OTHER, OTHER);
    const r = await runCli(['link', 'create', '--from-file', owned.input], { env: bulk.env });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain(`${owned.journal}.tally belongs to another user (uid ${OTHER})`);

    const linked = await sentOnce('linked.csv');
    const victim = join(tempDir(), 'victim.txt');
    writeFileSync(victim, 'keep me\n');
    rmSync(`${linked.journal}.tally`);
    symlinkSync(victim, `${linked.journal}.tally`);
    const before = snapshot(linked.journal);
    const l = await runCli(['link', 'create', '--from-file', linked.input], { env: bulk.env });
    expect(l.code).toBe(4);
    expect(l.stderr).toContain(`${linked.journal}.tally is a symbolic link`);
    expect(readFileSync(victim, 'utf8')).toBe('keep me\n');
    expect(snapshot(linked.journal)).toEqual(before);
    expect(bulk.server.requests).toHaveLength(6);
  });

  it('a link planted where the tally used to be written first (<journal>.tally.tmp) is never written through', async () => {
    const input = bulk.file('links.csv', csvOf(links(2)));
    const victim = join(tempDir(), 'victim.txt');
    writeFileSync(victim, 'keep me\n');
    symlinkSync(victim, `${input}.journal.tally.tmp`);
    const r = await runCli(['link', 'create', '--from-file', input], { env: bulk.env });
    expect(r.code).toBe(0);
    expect(readFileSync(victim, 'utf8')).toBe('keep me\n');
    expect(lstatSync(`${input}.journal.tally`).isFile()).toBe(true);
    expect(JSON.parse(readFileSync(`${input}.journal.tally`, 'utf8'))).toMatchObject({ smslinkJournalTally: 1 });
  });
});
