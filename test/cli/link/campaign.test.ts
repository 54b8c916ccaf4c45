// `smslink link campaign` in-process against a recording server that answers in
// the live shapes: what is sent, what is printed, and the exit codes.
import { describe, expect, it } from 'vitest';
import { useRecordingServer } from '../../helpers/recording-server.js';

const rec = useRecordingServer('LinkTestKey0123456789abcdefABCDEF01234567');

const cli = rec.cli;

describe('link campaign', () => {
  it('lists the campaign links with clicks and redirects', async () => {
    const r = await cli(['link', 'campaign', '9001', '-o', 'csv']);
    expect(rec.server.requests[0].body).toBe('campaignId=9001');
    expect(r.stdout).toBe('id,code,shortLink,fullLink,clickCnt,redirectCnt,comment\n5001,aB3d,https://sho.rt/aB3d,https://example.com/a,3,2,\n');
  });

  it('a campaign without links says so in words, exit 0; scripts get an empty list', async () => {
    rec.server.respond(() => ({ body: { code: 0, data: [], message: '' } }));
    const table = await cli(['link', 'campaign', '1', '-o', 'table']);
    expect(table.code).toBe(0);
    expect(table.stderr).toBe('no links in campaign 1\n');
    expect((await cli(['link', 'campaign', '1', '-o', 'json'])).stdout).toBe('[]\n');
  });
});
