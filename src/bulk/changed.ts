// Rows an earlier run sent that have changed since (docs/bulk.md, "Rows sent
// before and changed since"): a rerun holds them back unless asked. A row the
// journal does not show as sent is one of them when the journal shows a row
// with the same recipient (a link: full link) sent whose values no row of the
// input has now; each such sent row pairs with one row, in file order.

import type { CheckContext } from '../catalog/rules.js';
import { countSegments } from '../catalog/segments.js';
import { count } from '../output/words.js';
import { DigestTable, digestWords } from './digest-table.js';
import { canonical, digestOf, sameRowOf, wasSent, type RowIndex } from './identity.js';
import type { InputRow } from './input.js';
import type { Journal } from './journal.js';
import { check, type BulkSpec } from './spec.js';

type Rows = AsyncIterable<InputRow> | Iterable<InputRow>;

/** At most this many rows sent before keep their values in memory, to show one next to its row now. */
const EXAMPLES = 20;

/** What a person is shown before saying yes: one row then and now, and what sending them all costs. */
export interface ChangedPreview {
  row: number;
  before: Record<string, unknown>;
  after: Record<string, unknown>;
  /** SMS segments the held messages take (0 for links). */
  segments: number;
}

export class ChangedRows {
  /** By a digest of sameRow: [rows of the input not sent before, then rows still to hold back; pairs]. */
  readonly #table = new DigestTable(2);
  readonly #words = new Uint32Array(3);
  readonly #sameRow: (input: Record<string, unknown>) => string;
  /** Values of a few rows sent before, by sameRow, for the preview. */
  readonly #before = new Map<string, Record<string, unknown>>();
  /** Rows sent before and changed since, paired with a row of the input. */
  count = 0;

  private constructor(readonly command: string) {
    this.#sameRow = sameRowOf(command);
  }

  #slot(input: Record<string, unknown>, add: boolean): number {
    return this.#table.find(digestWords(digestOf(this.#sameRow(input)), this.#words), add);
  }

  /**
   * Reads the input once, counting its rows in `index` (the keys the send
   * will give them), and pairs the rows the journal shows as sent whose
   * values are gone with rows not sent before. Undefined when none pair.
   */
  static async find(journal: Journal, index: RowIndex, rows: Rows, spec: BulkSpec, rules: CheckContext): Promise<ChangedRows | undefined> {
    const changed = new ChangedRows(spec.command);
    const table = changed.#table;
    for await (const r of rows) {
      const { input } = check(rules, spec, r.fields, r.error);
      if (!input) continue;
      if (wasSent(index.state(index.key(canonical(input))))) continue;
      const slot = changed.#slot(input, true);
      table.set(slot, 0, table.get(slot, 0) + 1);
    }
    const gone = index.markGone();
    index.restartCounts();
    if (gone === 0 || table.size === 0) return undefined;
    for await (const sent of journal.sentValues((key) => index.isGone(key))) {
      const slot = changed.#slot(sent.input, false);
      if (slot < 0 || table.get(slot, 0) === 0) continue;
      index.pairGone(sent.key);
      table.set(slot, 0, table.get(slot, 0) - 1);
      table.set(slot, 1, table.get(slot, 1) + 1);
      changed.count += 1;
      const who = changed.#sameRow(sent.input);
      if (changed.#before.size < EXAMPLES && !changed.#before.has(who)) changed.#before.set(who, sent.input);
    }
    if (changed.count === 0) return undefined;
    changed.#restart();
    return changed;
  }

  /** Rows to hold back: as many per recipient (full link) as were paired. */
  #restart(): void {
    const table = this.#table;
    table.forEach((slot) => table.set(slot, 0, table.get(slot, 1)));
  }

  /** Whether a row not sent before is one of the changed rows (asked of each such row, in file order). */
  holds(input: Record<string, unknown>): boolean {
    const slot = this.#slot(input, false);
    if (slot < 0 || this.#table.get(slot, 0) === 0) return false;
    this.#table.set(slot, 0, this.#table.get(slot, 0) - 1);
    return true;
  }

  /** Reads the input once more, as the send will, for a row then and now and the segments the changed rows take. */
  async preview(index: RowIndex, rows: Rows, spec: BulkSpec, rules: CheckContext): Promise<ChangedPreview> {
    let example: Omit<ChangedPreview, 'segments'> | undefined;
    let segments = 0;
    for await (const r of rows) {
      const { input } = check(rules, spec, r.fields, r.error);
      if (!input || wasSent(index.state(index.key(canonical(input)))) || !this.holds(input)) continue;
      if (this.command === 'message send') segments += countSegments(String(input.text ?? '')).segments;
      const before = this.#before.get(this.#sameRow(input));
      if (!example && before) example = { row: r.row, before, after: input };
    }
    index.restartCounts();
    this.#restart();
    return { ...example!, segments };
  }

  /** The question asked at a terminal before the changed rows are sent again. */
  question(preview: ChangedPreview, columnOf: (key: string) => string): string {
    const n = this.count;
    const them = n === 1 ? 'it' : 'them';
    const { before, after } = preview;
    const fields = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]));
    const show = (values: Record<string, unknown>) => fields.map((k) => `${columnOf(k)} ${values[k] === undefined ? '(none)' : JSON.stringify(values[k])}`).join(', ');
    const message = this.command === 'message send';
    const who = message ? `to ${String(after.recipient)}` : String(after.fullLink);
    const cost = message ? `${count(n, 'message')}, ${count(preview.segments, 'segment')}` : `${count(n, 'more link')}`;
    return [
      `${count(n, 'row was', 'rows were')} sent by an earlier run and ${n === 1 ? 'has' : 'have'} changed since: sending ${them} now sends ${them} twice. For example, row ${preview.row} (${who}):`,
      `  then: ${show(before)}`,
      `  now:  ${show(after)}`,
      `Sending ${them} again costs ${cost}; the other rows are sent either way.`,
      `Send ${n === 1 ? 'this row' : `these ${n} rows`} again?`,
    ].join('\n');
  }
}
