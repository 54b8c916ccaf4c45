// Prose fitted to a terminal (errors, warnings, notes, help): broken at
// spaces, never inside a word or a quoted command, nothing lost.
import { describe, expect, it } from 'vitest';
import { fitLines } from '../../src/output/text.js';

describe('fitLines', () => {
  it('breaks a long line at spaces, keeps a `quoted command` on one line, and leaves short lines and no terminal alone', () => {
    const text = 'error: link "9" not found: no link has this id. `smslink link list --query ...` searches codes and comments.\nshort line';
    expect(fitLines(text, 40)).toBe(
      'error: link "9" not found: no link has\nthis id. `smslink link list --query ...`\nsearches codes and comments.\nshort line',
    );
    expect(fitLines(text, undefined)).toBe(text);
  });

  it('keeps the indent of a line on its continuation lines', () => {
    expect(fitLines('  - data[fullLink]: must be a URL with a scheme', 24)).toBe('  - data[fullLink]: must\n  be a URL with a scheme');
  });

  it('puts a quoted command wider than the terminal on a line of its own, whole, and loses no stray backtick', () => {
    expect(fitLines('run `smslink link list --all --jq .[]` now', 20)).toBe('run\n`smslink link list --all --jq .[]`\nnow');
    expect(fitLines('a ` lone backtick in a long line', 10)).toBe('a ` lone\nbacktick\nin a long\nline');
  });
});
