// `smslink api`: any operation with parameters as given.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../../helpers/run-cli.js';
import { useRecordingServer } from '../../helpers/recording-server.js';

const rec = useRecordingServer('ApiCmdKey0123456789abcdefABCDEF0123456789');
const cli = (args: string[], stdin?: string) => runCli(args, { env: rec.env, stdin });

describe('smslink api', () => {
  it('sends bracket keys as given, in order, and prints data as JSON', async () => {
    const r = await cli(['api', 'link/getStats', 'ids[]=1', 'ids[]=2', 'type=daily', 'criteria[dateFrom]=2026-11-01 00:00:00']);
    expect(r.code).toBe(0);
    expect(rec.server.requests[0].path).toBe('/service/link/getStats');
    expect(rec.server.requests[0].body).toBe('ids[]=1&ids[]=2&type=daily&criteria[dateFrom]=2026-11-01%2000%3A00%3A00');
    expect(JSON.parse(r.stdout).items[0].param).toBe('2026-10');
  });

  it('--envelope prints the whole envelope', async () => {
    const r = await cli(['api', 'Link/Create', 'data[fullLink]=https://example.com/?a=1&b=2', '--envelope']);
    expect(JSON.parse(r.stdout)).toEqual({ code: 0, data: { id: '417863', code: 'ddoj', shortLink: 'https://sho.rt/ddoj' }, message: '' });
    expect(new URLSearchParams(rec.server.requests[0].body).get('data[fullLink]')).toBe('https://example.com/?a=1&b=2');
  });

  it('code 100 (accepted as a background task) is success: the task id is printed, exit 0', async () => {
    rec.server.respond(() => ({ body: { code: 100, data: 'task-17', message: '' } }));
    const r = await cli(['api', 'Link/GetLinks', 'campaignId=9001']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toBe('task-17');
    expect(r.stderr).toContain('accepted as a background task (code 100)');
  });

  it('--input reads a JSON object of parameters', async () => {
    const file = join(tempDir(), 'criteria.json');
    writeFileSync(file, JSON.stringify({ criteria: { status: 1 }, pagination: { pageSize: 25 } }));
    await cli(['api', 'Link/List', '--input', file]);
    expect(rec.server.requests[0].body).toBe('criteria[status]=1&pagination[pageSize]=25');
  });

  it('passes unknown operations through with a warning', async () => {
    rec.server.respond(() => ({ body: { code: 0, data: { balance: '12.5' }, message: '' } }));
    const r = await cli(['api', 'Account/GetBalance']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('Account/GetBalance is not an operation smslink knows; sending it as given');
    expect(JSON.parse(r.stdout)).toEqual({ balance: '12.5' });
  });

  it('names the operation a slip was meant for, as every typo is, and still sends what was typed', async () => {
    rec.server.respond(() => ({ body: { code: 5, data: null, message: 'Method Gett not found in module Link' } }));
    const r = await cli(['api', 'Link/Gett', 'id=5']);
    expect(r.stderr).toContain('warning: Link/Gett is not an operation smslink knows (did you mean Link/Get?); sending it as given');
    expect(rec.server.requests[0].path).toBe('/service/Link/Gett');
  });

  it('exits with the code that matches the service result', async () => {
    rec.server.respond(() => ({ body: { code: 2, data: null, message: 'not found' } }));
    const r = await cli(['api', 'Link/Get', 'id=5']);
    expect(r.code).toBe(6);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('code 2');
  });

  it('--dry-run prints the request and sends nothing; bad pairs are usage errors', async () => {
    const dry = await cli(['api', 'Link/Get', 'id=5', '--dry-run']);
    expect(JSON.parse(dry.stdout)).toMatchObject({ dryRun: true, fields: { id: '5' } });
    expect(JSON.parse(dry.stdout).url).toContain('apiKey=***');
    expect(rec.server.requests).toHaveLength(0);
    expect((await cli(['api', 'Link/Get', 'id'])).code).toBe(2);
    expect((await cli(['api', 'Link', 'id=1'])).code).toBe(2);
  });
});
