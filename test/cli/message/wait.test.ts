// --wait polls until every message is final: exit 0 delivered, 7 not, 3 on timeout.
import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/run-cli.js';
import { useRecordingServer } from '../../helpers/recording-server.js';
import { parseDuration } from '../../../src/cli/core/time.js';

const rec = useRecordingServer('WaitKey0123456789abcdefABCDEF0123456789ab');

/** Each id walks through its statuses, one step per poll. */
function lifecycle(paths: Record<string, string[]>) {
  const step: Record<string, number> = {};
  rec.server.respond((req) => {
    if (!req.path.endsWith('GetSMSStatus')) return undefined;
    const ids = new URLSearchParams(req.body).get('ids')!.split(',');
    const data = ids
      .filter((id) => paths[id])
      .map((id) => {
        const i = Math.min(step[id] ?? 0, paths[id].length - 1);
        step[id] = i + 1;
        return { id, status: paths[id][i], segNum: '1', startSendTs: null, statusUpdateTs: null };
      });
    return { body: { code: 0, data, message: '' } };
  });
}

describe('--wait', () => {
  it('exits 0 when every message is delivered, and asks again only for those not final', async () => {
    lifecycle({ '1': ['NEW', 'ACCEPTD', 'DELIVRD'], '2': ['DELIVRD'] });
    const r = await runCli(['message', 'status', '1', '2', '--wait', '-q'], { env: rec.env });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('DELIVRD\nDELIVRD\n');
    const asked = rec.server.requests.map((q) => new URLSearchParams(q.body).get('ids'));
    expect(asked).toEqual(['1,2', '1', '1']);
    expect(r.stderr).toMatch(/2 messages: 2 delivered \(DELIVRD\); waited \d+ s/);
  });

  it('a message already final at the first look is said so, not as waited for', async () => {
    lifecycle({ '1': ['DELIVRD'] });
    const r = await runCli(['message', 'status', '1', '--wait', '-q'], { env: rec.env });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('message 1: delivered (DELIVRD), already final');
    expect(r.stderr).not.toMatch(/waited \d+ s/);
    expect(rec.server.requests).toHaveLength(1);
  });

  it('exits 7 when a message ends otherwise, naming it', async () => {
    lifecycle({ '1': ['ENQUEUD', 'UNDELIV'], '2': ['DELIVRD'] });
    const r = await runCli(['message', 'status', '1,2', '--wait'], { env: rec.env });
    expect(r.code).toBe(7);
    expect(r.stderr).toContain('not delivered: message 1 undelivered (UNDELIV)');
  });

  it('exits 3 when the wait times out', async () => {
    lifecycle({ '1': ['ENQUEUD'] });
    const r = await runCli(['message', 'status', '1', '--wait', '--wait-timeout', '1s'], { env: rec.env });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('the wait timed out (--wait-timeout); not final yet: 1');
  });

  it('does not wait for an id the service does not know', async () => {
    lifecycle({});
    const r = await runCli(['message', 'status', '77', '--wait'], { env: rec.env });
    expect(r.code).toBe(6);
    expect(rec.server.requests).toHaveLength(1);
  });

  it('message send --wait sends once, then waits for the new message', async () => {
    lifecycle({ '123456': ['NEW', 'DELIVRD'] });
    const r = await runCli(['message', 'send', '--to', '77011234567', '--text', 'ci', '--wait'], { env: rec.env });
    expect(r.code).toBe(0);
    expect(rec.server.requests.filter((q) => q.path.endsWith('SendSmsMessage'))).toHaveLength(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ messageId: 123456, deliveryStatus: 'DELIVRD' });
  });

  it('message send --wait labels the message\'s status as message status does, beside the campaign status', async () => {
    lifecycle({ '123456': ['NEW', 'UNDELIV'] });
    const sent = await runCli(['message', 'send', '--to', '77011234567', '--text', 'ci', '--wait', '-o', 'table', '--no-color'], { env: rec.env });
    expect(sent.code).toBe(7);
    lifecycle({ '123456': ['UNDELIV'] });
    const status = await runCli(['message', 'status', '123456', '-o', 'table', '--no-color'], { env: rec.env });
    const line = /^status +.*$/m.exec(status.stdout)![0];
    expect(line).toMatch(/^status +undelivered \(UNDELIV\)$/);
    expect(sent.stdout).toMatch(/^status +undelivered \(UNDELIV\)$/m);
    expect(sent.stdout).toMatch(/^campaign status +sent without moderation$/m);
    expect(sent.stdout).not.toMatch(/^delivery/m);
  });

  it('message send --wait with a bad --wait-timeout or --concurrency sends nothing', async () => {
    lifecycle({ '123456': ['DELIVRD'] });
    for (const bad of [['--wait-timeout', '5x'], ['--wait-timeout', '0'], ['--concurrency', '0']]) {
      const r = await runCli(['message', 'send', '--to', '77011234567', '--text', 'ci', '--wait', ...bad], { env: rec.env });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`${bad[0]}: invalid value "${bad[1]}"`);
    }
    expect(rec.server.requests).toHaveLength(0);
  });

  it('shows a live line on a terminal', async () => {
    lifecycle({ '1': ['NEW', 'DELIVRD'] });
    const r = await runCli(['message', 'status', '1', '--wait', '--no-color'], { env: rec.env, tty: true });
    // eslint-disable-next-line no-control-regex
    expect(r.stderr).toMatch(/\r\x1b\[2Kmessage 1: new \(NEW\); waiting for delivery \d s \(gives up in (10 min|9 min [56]\d s)\)/);
    // eslint-disable-next-line no-control-regex
    expect(r.stderr).toMatch(/\r\x1b\[2Kmessage 1: delivered \(DELIVRD\); waited \d s\n/);
  });

  it('parses durations and refuses others', async () => {
    expect([parseDuration('90s', 'x'), parseDuration('10m', 'x'), parseDuration('1h', 'x'), parseDuration('250ms', 'x'), parseDuration('5', 'x')]).toEqual([
      90_000, 600_000, 3_600_000, 250, 5000,
    ]);
    const r = await runCli(['message', 'status', '1', '--wait', '--wait-timeout', 'soon'], { env: rec.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--wait-timeout: invalid value "soon": must be a duration such as 90s, 10m or 1h');
    const zero = await runCli(['message', 'status', '1', '--wait', '--wait-timeout', '0s'], { env: rec.env });
    expect(zero.stderr).toContain('--wait-timeout: invalid value "0s": must be more than 0, such as 90s, 10m or 1h');
    expect(rec.server.requests).toHaveLength(0);
  });

  it('refuses --wait-timeout without --wait, and sends nothing', async () => {
    for (const args of [
      ['message', 'send', '--to', '77011234567', '--text', 'ci', '--wait-timeout', 'abc'],
      ['message', 'send', '--to', '77011234567', '--text', 'ci', '--wait-timeout', '5m'],
      ['message', 'status', '1', '--wait-timeout', '5m'],
    ]) {
      const r = await runCli(args, { env: rec.env });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('--wait-timeout applies only with --wait');
    }
    expect(rec.server.requests).toHaveLength(0);
  });

  it('send --wait names the message id before waiting, so an interrupted wait does not lose it', async () => {
    const ac = new AbortController();
    rec.server.respond((req) =>
      req.path.endsWith('GetSMSStatus') ? { body: { code: 0, data: [{ id: '123456', status: 'ENQUEUD', segNum: '1', startSendTs: null, statusUpdateTs: null }], message: '' } } : undefined,
    );
    setTimeout(() => ac.abort(), 300);
    const r = await rec.cli(['message', 'send', '--to', '77011234567', '--text', 'x', '--wait'], { signal: ac.signal });
    expect(r.code).toBe(130);
    expect(r.stderr).toContain('Sent message 123456 (campaign 9001)');
    expect(r.stderr).toContain('interrupted while waiting; not final yet: 123456');
  });

  it('message status --wait waits for the ids it finds and names the others (exit 5)', async () => {
    rec.server.respond((req) => {
      if (!req.path.endsWith('GetSMSStatus')) return undefined;
      const ids = new URLSearchParams(req.body).get('ids')!.split(',').filter((id) => id !== '999');
      return { body: { code: 0, data: ids.map((id) => ({ id, status: 'DELIVRD', segNum: '1', startSendTs: null, statusUpdateTs: null })), message: '' } };
    });
    const r = await rec.cli(['message', 'status', '1', '2', '999', '--wait', '-q']);
    expect(r.code).toBe(5);
    expect(r.stdout).toBe('DELIVRD\nDELIVRD\n');
    expect(r.stderr).toContain('no message found for 999 (unknown, or not yours); waiting for the others');
  });
});
