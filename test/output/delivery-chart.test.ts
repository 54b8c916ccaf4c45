// The bar chart under `report delivery` as an operator reads it: every part
// that is not 0 is seen however small beside the busiest group, bars keep
// their proportions and the width, and the rate reads as the table says it.
import { describe, expect, it } from 'vitest';
import { deliveryChart, type DeliveryBar } from '../../src/output/delivery-chart.js';
import type { Paint } from '../../src/output/color.js';
import { cellWidth } from '../../src/output/width.js';

const plain: Paint = { bold: (s) => s, dim: (s) => s, red: (s) => s, green: (s) => s, yellow: (s) => s, cyan: (s) => s };

const bar = (label: string, delivered: number, failed: number, pending: number): DeliveryBar => ({
  label,
  delivered,
  failed,
  pending,
  rate: delivered + failed ? delivered / (delivered + failed) : null,
});

/** Each line's bar: its cells of each kind. */
function bars(text: string): Record<string, { d: number; f: number; p: number }> {
  const out: Record<string, { d: number; f: number; p: number }> = {};
  for (const line of text.split('\n').slice(0, -2)) {
    const label = line.split(' ')[0];
    const n = (ch: string) => [...line].filter((c) => c === ch).length;
    out[label] = { d: n('█'), f: n('▒'), p: n('░') };
  }
  return out;
}

describe('report delivery chart', () => {
  it('a small group beside a busy one still has a bar, each of its parts seen', () => {
    const text = deliveryChart([bar('ShopPromo', 78, 33, 0), bar('SMSLINK', 1, 1, 1)], plain, 80);
    expect(bars(text).SMSLINK).toEqual({ d: 1, f: 1, p: 1 });
    expect(text).toMatch(/^SMSLINK +█▒░ +50\.0% of 3$/m);
  });

  it('one failure or one pending message among many is drawn, not rounded away', () => {
    const text = deliveryChart([bar('2026-11-24', 399, 1, 0), bar('2026-11-25', 399, 0, 1)], plain, 80);
    const b = bars(text);
    expect(b['2026-11-24'].f).toBe(1);
    expect(b['2026-11-25'].p).toBe(1);
    // The busiest group fills the bar's room exactly: no part's rounding makes it longer.
    expect(b['2026-11-24'].d + b['2026-11-24'].f).toBe(b['2026-11-25'].d + b['2026-11-25'].p);
  });

  it('bars keep their length in proportion to the busiest group, and every line fits the width', () => {
    const groups = [bar('KZ', 58, 31, 1), bar('RU', 37, 32, 0), bar('GB', 11, 7, 0), bar('TJ', 0, 0, 2)];
    for (const width of [60, 80, 120]) {
      const text = deliveryChart(groups, plain, width);
      for (const line of text.split('\n')) expect(cellWidth(line)).toBeLessThanOrEqual(width);
      const b = bars(text);
      const len = (k: string) => b[k].d + b[k].f + b[k].p;
      expect(len('KZ')).toBeGreaterThan(len('RU'));
      expect(len('RU')).toBeGreaterThan(len('GB'));
      expect(Math.abs(len('RU') / len('KZ') - 69 / 90)).toBeLessThan(0.06);
      expect(b.TJ).toEqual({ d: 0, f: 0, p: 1 });
    }
  });

  it('says the rate as the table does, to one decimal', () => {
    const text = deliveryChart([bar('KZ', 25, 15, 0), bar('UZ', 0, 0, 3)], plain, 80);
    expect(text).toMatch(/^KZ +█+▒+ +62\.5% of 40$/m);
    expect(text).toMatch(/^UZ +░+ +- of 3$/m);
  });
});
