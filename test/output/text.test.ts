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
  it('a backtick inside a value opens nothing: the command quoted after it stays whole and every line fits', () => {
    const fitted = fitLines('error: link "x`y" not found: no link has this id. `smslink link list --query ...` searches codes and comments.', 60);
    for (const line of fitted.split('\n')) expect(line.length, line).toBeLessThanOrEqual(60);
    expect(fitted.split('\n').some((line) => line.includes('`smslink link list --query ...`'))).toBe(true);
  });

  it('changes nothing but the spaces at a break: a value keeps its runs of spaces and its tabs', () => {
    const text = 'error: "a    b\tc" is not a link id, code or short link (a code is letters and digits, e.g. ddoj)';
    const fitted = fitLines(text, 40);
    expect(fitted).toContain('"a    b\tc"');
    expect(fitted.replace(/\n/g, ' ')).toBe(text);
  });

  it('counts no room for colour codes: a coloured prefix breaks where the plain one would', () => {
    const plain = 'error: no base URL and no API key: run `smslink login` to set them (or set SMSLINK_BASE_URL and SMSLINK_API_KEY)';
    const red = (s: string) => `\u001b[31m${s}\u001b[39m`;
    expect(fitLines(plain.replace('error:', red('error:')), 80)).toBe(fitLines(plain, 80).replace('error:', red('error:')));
    expect(fitLines(red('short'), 6)).toBe(red('short'));
  });
});

