// The mirror's store on its own: what the service's answers become in it.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Mirror, deliveryReport } from '../../src/mirror/index.js';
import { nearestRank } from '../../src/mirror/report.js';
import { tempDir } from '../helpers/run-cli.js';

let mirror: Mirror | undefined;
afterEach(() => mirror?.close());

describe('mirror store', () => {
  it('reads the contract\'s GetSMSStatus times (HH-MM-SS) as wire times, so time to final status counts them', () => {
    mirror = Mirror.open(join(tempDir(), 'm.db'));
    mirror.storeMessages([{ id: 1, to: '77011234567', text: 'hi', status: 'ACCEPTD', segNum: 1, segUserBuy: '0.0600', startSendTs: '2025-01-15 10:00:00', statusUpdateTs: null }]);
    mirror.storeStatuses([{ id: 1, status: 'DELIVRD', segNum: 1, startSendTs: '2025-01-15 10-00-00', statusUpdateTs: '2025-01-15 10-01-30' }]);
    const [row] = deliveryReport(mirror, 'day', {});
    expect(row).toMatchObject({ group: '2025-01-15', delivered: 1, pending: 0, deliveryRate: 1, medianSeconds: 90, p90Seconds: 90, cost: 0.06 });
  });

  it('gives each group the median and p90 of its own final messages, ties and messages with no country included', () => {
    mirror = Mirror.open(join(tempDir(), 'm.db'));
    // Per group, durations in seconds; every fourth still under way (not counted), one final without an update time.
    const groups: Record<string, number[]> = { '7701': [5, 5, 5, 9, 1, 30, 2, 2, 8, 7, 7, 60], '7916': [3], '4915': [10, 20, 30, 40, 50, 60, 70] };
    let id = 0;
    const at = (s: number) => new Date(Date.UTC(2025, 0, 15, 10, 0, s)).toISOString().slice(0, 19).replace('T', ' ');
    const items = Object.entries(groups).flatMap(([prefix, durations]) =>
      durations.map((d, i) => ({ id: ++id, to: `${prefix}1234567`, countryA2: prefix === '4915' ? null : prefix === '7701' ? 'KZ' : 'RU', text: 't', status: i % 4 === 3 ? 'ACCEPTD' : 'DELIVRD', segNum: 1, segUserBuy: 1, startSendTs: at(0), statusUpdateTs: at(d) })),
    );
    items.push({ id: ++id, to: '77011234567', countryA2: 'KZ', text: 't', status: 'UNDELIV', segNum: 1, segUserBuy: 1, startSendTs: at(0), statusUpdateTs: null as unknown as string });
    mirror.storeMessages(items);
    const rows = new Map(deliveryReport(mirror, 'country', {}).map((r) => [r.group, r]));
    for (const [prefix, durations] of Object.entries(groups)) {
      const final = durations.filter((_, i) => i % 4 !== 3).sort((a, b) => a - b);
      const row = rows.get(prefix === '4915' ? 'unknown' : prefix === '7701' ? 'KZ' : 'RU')!;
      expect([row.medianSeconds, row.p90Seconds]).toEqual([nearestRank(final, 0.5), nearestRank(final, 0.9)]);
    }
    expect(rows.get('KZ')).toMatchObject({ messages: 13, pending: 3, undelivered: 1, medianSeconds: 5, p90Seconds: 30 });
  });

  it('takes the nearest-rank percentile: the value at rank ⌈p·n⌉', () => {
    expect(nearestRank([1, 2, 3, 4], 0.5)).toBe(2);
    expect(nearestRank([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.9)).toBe(9);
    expect(nearestRank([7], 0.9)).toBe(7);
    expect(nearestRank([], 0.5)).toBeNull();
  });
});
