// The vocabulary (src/output/words.ts): each thing a person reads is said by
// one function, and these are its words.
import { describe, expect, it } from 'vitest';
import { ago, allOfThem, say, campaignStatusWord, count, restOfLimit, shownOf, showing, didYouMean, unknownName, duration, elapsed, fromNow, invalidValue, money, notFound, oneOf, recordTime, statusWithCode, statusWord, tableTime, timelineWords } from '../../src/output/words.js';

describe('words', () => {
  it('say: an object where a status, money or a time belongs is shown as it came, never thrown on', () => {
    // Found by test/resilience/hostile-answers.test.ts: String() of it threw (Cannot convert object to primitive value).
    const odd = { toString: [] };
    for (const kind of ['linkStatus', 'moderatorStatus', 'messageStatus', 'campaignStatus', 'money', 'time', 'seconds', 'fraction'] as const) {
      for (const form of ['table', 'record'] as const) expect(say(kind, odd, form, 'KZT'), `${kind} ${form}`).toBe('{"toString":[]}');
    }
    expect(say('linkStatus', 1, 'table')).not.toBe('1');
  });

  it('says a message status as a word, with its code in a record; an unknown status as it came', () => {
    expect(statusWord('DELIVRD')).toBe('delivered');
    expect(statusWord('PDLIVRD')).toBe('partly delivered');
    expect(statusWithCode('REJECTD')).toBe('rejected (REJECTD)');
    expect(statusWord('NEWSTATE')).toBe('NEWSTATE');
    expect(statusWithCode('NEWSTATE')).toBe('NEWSTATE');
  });

  it("says a message's timeline in words, each step with its time in a record", () => {
    const steps = [
      { status: 'NEW', at: '2025-01-15 09:00:02' },
      { status: 'REJECTD', at: '2025-01-15 09:00:04' },
    ];
    expect(timelineWords(steps, 'table')).toBe('new -> rejected');
    expect(timelineWords(steps, 'record')).toBe('new 2025-01-15 09:00:02 -> rejected 2025-01-15 09:00:04');
    expect(timelineWords('none yet', 'table')).toBe('none yet');
  });

  it('says a campaign status in words', () => {
    expect(campaignStatusWord(2)).toBe('sent without moderation');
    expect(campaignStatusWord('1')).toBe('awaiting moderation');
    expect(campaignStatusWord('DONE')).toBe('done');
    expect(campaignStatusWord(7)).toBe('7');
  });

  it('writes money with four decimals and the currency when known', () => {
    expect(money(0.01, 'KZT')).toBe('0.0100 KZT');
    expect(money('0.0600')).toBe('0.0600');
    expect(money(null)).toBe('');
    expect(money('n/a')).toBe('n/a');
  });

  it('writes a time to the minute in a table and to the second in a record', () => {
    expect(tableTime('2026-11-26 19:08:43')).toBe('2026-11-26 19:08');
    expect(recordTime('2026-11-26 19:08:43')).toBe('2026-11-26 19:08:43');
    expect(recordTime('2026-11-26 19:08')).toBe('2026-11-26 19:08:00');
    expect(tableTime(null)).toBe('');
  });

  it.each([
    [0, '0 s'],
    [0.2, '1 s'],
    [8, '8 s'],
    [185, '3 min 5 s'],
    [3600, '1 h'],
    [86_292, '23 h 58 min'],
    [183_600, '2 d 3 h'],
    [-1, '?'],
  ])('says %s seconds as %s', (seconds, words) => {
    expect(duration(seconds)).toBe(words);
  });

  it.each([
    [1.234, '1.2 ms'],
    [0.03, '<0.1 ms'],
    [0, '<0.1 ms'],
    [0.05, '0.1 ms'],
    [9.97, '10 ms'],
    [340.4, '340 ms'],
    [999.7, '1.0 s'],
    [412, '412 ms'],
    [2_440, '2.4 s'],
    [9_960, '10 s'],
    [12_300, '12 s'],
    [185_000, '3 min 5 s'],
    [-1, '?'],
  ])('says that something took %s ms as %s', (ms, words) => {
    expect(elapsed(ms)).toBe(words);
  });

  it('says how long ago and how far ahead', () => {
    expect(ago(8)).toBe('8 s ago');
    expect(ago(0)).toBe('just now');
    expect(ago(0.7)).toBe('1 s ago');
    expect(fromNow(86_292)).toBe('in 23 h 58 min');
  });

  it('says how much of a list is shown', () => {
    expect(shownOf(200, 206, 'message')).toBe('200 of 206 messages');
    expect(shownOf(5, 5, 'message')).toBe('5 messages');
    expect(shownOf(1, 1, 'link')).toBe('1 link');
    // Under a table: which part, for a page and for a search cut short by --limit alike.
    expect(showing(26, 25, 206, 'messages')).toBe('Showing 26-50 of 206 messages');
    expect(showing(1, 5, 60, 'matches')).toBe('Showing 1-5 of 60 matches');
    expect(allOfThem('--all')).toBe('All of them: `--all`.');
    // A --limit of at most 1000 with no pages: all of them, or the first 1000 and how to reach the rest.
    expect(restOfLimit(60, 5, 1000, 'best', 'the others: add words')).toBe('All of them: `--limit 60`.');
    expect(restOfLimit(1001, 5, 1000, 'best', 'the others: add words')).toBe('The best 1000: `--limit 1000`; the others: add words.');
    expect(restOfLimit(1001, 1000, 1000, 'best', 'the others: add words')).toBe('1000 is the most at once; the others: add words.');
  });

  it('counts', () => {
    expect(count(1, 'row')).toBe('1 row');
    expect(count(2, 'row')).toBe('2 rows');
    expect(count(3, 'entry', 'entries')).toBe('3 entries');
  });

  it('says a not-found one way, named as typed', () => {
    expect(notFound('link', ['99999'])).toBe('no link found for 99999 (unknown, or not yours)');
    expect(notFound('message', [1, 2])).toBe('no message found for 1, 2 (unknown, or not yours)');
  });

  it('offers the nearest choice for a slip of the fingers, and none for a different word', () => {
    expect(didYouMean('contry', ['day', 'sender', 'country', 'operator'])).toBe('country');
    expect(didYouMean('JSN', ['table', 'json'])).toBe('json');
    expect(didYouMean('banana', ['table', 'json'])).toBeUndefined();
    expect(invalidValue('--by', 'contry', oneOf(['day', 'country']), ['day', 'country'])).toBe('--by: invalid value "contry" (did you mean country?): must be one of day, country');
    expect(invalidValue('--by', 'xyz', oneOf(['day']), ['day'])).toBe('--by: invalid value "xyz": must be one of day');
    // Quoted on one line.
    expect(invalidValue('--text', ' \n\t\r', 'must not be blank')).toBe('--text: invalid value " \\n\\t\\r": must not be blank');
  });

  it('says a value from JSON, a seed or a library call by its kind: a number as it is, a list or a mapping named, none given when left out', () => {
    expect(invalidValue('rate', 2, 'must be a probability from 0 to 1')).toBe('rate: invalid value 2: must be a probability from 0 to 1');
    expect(invalidValue('rate', '2', 'must be a probability from 0 to 1')).toBe('rate: invalid value "2": must be a probability from 0 to 1');
    expect(invalidValue('links[0].status', [1], 'must be 0 or 1')).toBe('links[0].status: invalid value a list: must be 0 or 1');
    expect(invalidValue('to', { n: 1 }, 'must be digits')).toBe('to: invalid value a mapping: must be digits');
    expect(invalidValue('status', undefined, 'must be a final status')).toBe('status: none given: must be a final status');
    expect(invalidValue('text', 'x'.repeat(100), 'must be short')).toBe(`text: invalid value "${'x'.repeat(77)}...": must be short`);
  });

  it('counts two neighbouring letters swapped as one slip', () => {
    expect(didYouMean('sned', ['send', 'status', 'list', 'get'])).toBe('send');
    expect(didYouMean('lsit', ['create', 'list'])).toBe('list');
    expect(didYouMean('dialy', ['monthly', 'daily', 'hourly', 'minute'])).toBe('daily');
    expect(didYouMean('tsil', ['list'])).toBeUndefined();
    // Of two as near, the one that starts as typed.
    expect(didYouMean('dsc', ['asc', 'desc'])).toBe('desc');
    expect(didYouMean('xend', ['send', 'status'])).toBe('send');
  });

  it('names an unknown name as typed, with where it was typed', () => {
    expect(unknownName('command', 'sned', ['send', 'status'], 'message')).toBe('unknown command "message sned" (did you mean message send?)');
    expect(unknownName('command', 'lnk', ['link', 'message'])).toBe('unknown command "lnk" (did you mean link?)');
    expect(unknownName('setting', 'colour', ['output', 'base-url'])).toBe('unknown setting "colour"');
  });
});
