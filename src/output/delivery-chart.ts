// The bar chart under `report delivery`'s table: a bar per group as long as
// its share of the busiest group's messages, split into delivered, failed
// and pending, with the delivery rate beside it. Colour, when on, repeats
// what the shading already says, so the chart reads without it.

import type { Paint } from './color.js';
import { cellWidth, cutMiddle, padEnd } from './width.js';

export interface DeliveryBar {
  label: string;
  delivered: number;
  failed: number;
  pending: number;
  /** delivered ÷ final, or null when none is final. */
  rate: number | null;
}

const MAX_BAR = 50;
const MAX_LABEL = 20;

/** Lines of the chart, `width` cells at most (the label is cut first). */
export function deliveryChart(bars: readonly DeliveryBar[], paint: Paint, width: number): string {
  if (bars.length === 0) return '';
  const labelWidth = Math.min(MAX_LABEL, Math.max(...bars.map((b) => cellWidth(b.label))));
  const beside = (b: DeliveryBar) => `${b.rate === null ? '  -' : `${Math.round(b.rate * 100)}%`.padStart(4)} of ${b.delivered + b.failed + b.pending}`;
  const besideWidth = Math.max(...bars.map((b) => beside(b).length));
  const room = Math.max(10, Math.min(MAX_BAR, width - labelWidth - besideWidth - 4));
  const busiest = Math.max(1, ...bars.map((b) => b.delivered + b.failed + b.pending));
  const cells = (n: number) => Math.round((n / busiest) * room);
  const lines = bars.map((b) => {
    const [d, f, p] = [cells(b.delivered), cells(b.failed), cells(b.pending)];
    const bar = paint.green('█'.repeat(d)) + paint.red('▒'.repeat(f)) + paint.dim('░'.repeat(p));
    return `${padEnd(cutMiddle(b.label, labelWidth), labelWidth)}  ${bar}${' '.repeat(Math.max(0, room - d - f - p))}  ${beside(b)}`.trimEnd();
  });
  return `${lines.join('\n')}\n${paint.dim(`${' '.repeat(labelWidth + 2)}█ delivered  ▒ failed  ░ pending`)}\n`;
}
