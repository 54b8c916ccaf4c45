// The bar chart under `report delivery`'s table: a bar per group as long as
// its share of the busiest group's messages, split into delivered, failed
// and pending, with the delivery rate beside it. Colour, when on, repeats
// what the shading already says, so the chart reads without it.

import type { Paint } from './color.js';
import { cellWidth, cutMiddle, padEnd } from './width.js';
import type { MessageStatusGroup } from '../catalog/codes.js';
import { percent, statusWord } from './words.js';

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

/**
 * `cells` cells shared among the parts by their size, largest remainders
 * first; a part that is not 0 gets one at least (one failure among 400
 * messages is seen, and a group of 3 beside one of 300 is no empty bar),
 * taken from the largest part. The bar is as long as `cells` says, or as
 * many cells as it has parts that are not 0.
 */
function split(parts: readonly number[], cells: number): number[] {
  const total = parts.reduce((a, b) => a + b, 0);
  if (total === 0) return parts.map(() => 0);
  const want = Math.max(cells, parts.filter((n) => n > 0).length);
  const exact = parts.map((n) => (n / total) * want);
  const out = exact.map((x, i) => (parts[i] > 0 ? Math.max(1, Math.floor(x)) : 0));
  const byRemainder = parts.map((_, i) => i).filter((i) => parts[i] > 0).sort((a, b) => exact[b] - Math.floor(exact[b]) - (exact[a] - Math.floor(exact[a])));
  let left = want - out.reduce((a, b) => a + b, 0);
  // Short of cells (floors): the largest remainders get one more each.
  for (let k = 0; left > 0; k++, left--) out[byRemainder[k % byRemainder.length]] += 1;
  // Over (the ones given to small parts): the largest part gives them back; it has two at least.
  for (; left < 0; left++) out[out.indexOf(Math.max(...out))] -= 1;
  return out;
}

/** Lines of the chart, `width` cells at most (the label is cut first). */
export function deliveryChart(bars: readonly DeliveryBar[], paint: Paint, width: number): string {
  if (bars.length === 0) return '';
  const labelWidth = Math.min(MAX_LABEL, Math.max(...bars.map((b) => cellWidth(b.label))));
  // The rate as the table says it (words.ts): the same number, the same words.
  const beside = (b: DeliveryBar) => `${(b.rate === null ? '-' : percent(b.rate)).padStart(6)} of ${b.delivered + b.failed + b.pending}`;
  const besideWidth = Math.max(...bars.map((b) => beside(b).length));
  const room = Math.max(10, Math.min(MAX_BAR, width - labelWidth - besideWidth - 4));
  const busiest = Math.max(1, ...bars.map((b) => b.delivered + b.failed + b.pending));
  const lines = bars.map((b) => {
    const total = b.delivered + b.failed + b.pending;
    const [d, f, p] = split([b.delivered, b.failed, b.pending], Math.round((total / busiest) * room));
    const bar = paint.green('█'.repeat(d)) + paint.red('▒'.repeat(f)) + paint.dim('░'.repeat(p));
    return `${padEnd(cutMiddle(b.label, labelWidth), labelWidth)}  ${bar}${' '.repeat(Math.max(0, room - d - f - p))}  ${beside(b)}`.trimEnd();
  });
  // The words `--status` takes for each part (codes.ts: failed and pending are groups of statuses).
  const legend = `█ ${statusWord('DELIVRD')}  ▒ ${'failed' satisfies MessageStatusGroup}  ░ ${'pending' satisfies MessageStatusGroup}`;
  return `${lines.join('\n')}\n${paint.dim(`${' '.repeat(labelWidth + 2)}${legend}`)}\n`;
}
