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

  it('takes the nearest-rank percentile: the value at rank ⌈p·n⌉', () => {
    expect(nearestRank([1, 2, 3, 4], 0.5)).toBe(2);
    expect(nearestRank([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.9)).toBe(9);
    expect(nearestRank([7], 0.9)).toBe(7);
    expect(nearestRank([], 0.5)).toBeNull();
  });
});
