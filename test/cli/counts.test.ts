// A count is said by words.ts count(): one of a thing is singular wherever a
// person reads it (`1 row checked`, not `1 rows checked`), in a bulk run's
// notes and a row's error as much as in a command's own lines.
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { useBulkService } from '../helpers/bulk-files.js';

const bulk = useBulkService();

describe('counts of one', () => {
  it('a check of one row says "1 row checked"', async () => {
    const input = bulk.file('one.csv', 'fullLink\nhttps://example.com/one\n');
    const r = await runCli(['link', 'create', '--from-file', input, '--validate-only'], { env: bulk.env });
    expect(r.stderr).toContain('1 row checked: 1 valid, 0 invalid. Nothing was sent.');
  });

  it('a dry run of one row says "1 request like this one would be sent"', async () => {
    const input = bulk.file('one.csv', 'fullLink\nhttps://example.com/one\n');
    const r = await runCli(['--dry-run', 'link', 'create', '--from-file', input], { env: bulk.env });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('dry run: 1 request like this one would be sent');
  });

  it('a row of one field says "has 1 field"', async () => {
    const input = bulk.file('short.csv', 'fullLink,comment\n"https://example.com/a,b"\n');
    const r = await runCli(['link', 'create', '--from-file', input, '--validate-only', '-o', 'csv'], { env: bulk.env });
    expect(r.stdout).toContain('has 1 field but the header has 2');
  });
});
