// `smslink link campaign` in-process against a recording server that answers in
// the live shapes: what is sent, what is printed, and the exit codes.
import { describe, expect, it } from 'vitest';
import { useRecordingServer } from '../helpers/recording-server.js';

const rec = useRecordingServer('LinkTestKey0123456789abcdefABCDEF01234567');

const cli = rec.cli;

describe('link campaign', () => {
  it('lists the campaign links with clicks and redirects', async () => {
    const r = await cli(['link', 'campaign', '9001', '-o', 'csv']);
    expect(rec.server.requests[0].body).toBe('campaignId=9001');
    expect(r.stdout).toBe('id,code,shortLink,fullLink,clickCnt,redirectCnt,comment\n5001,aB3d,https://sho.rt/aB3d,https://example.com/a,3,2,\n');
  });
});
