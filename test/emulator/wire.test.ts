import fc from 'fast-check';
import qs from 'qs';
import { describe, expect, it } from 'vitest';
import { linkStats, messageList, messageStatus } from '../../src/catalog/index.js';
import { fromWire, INVALID_ENCODING, parseForm } from '../../src/emulator/service/wire.js';
import { encodeParams } from '../helpers/emulator.js';

const plain = (v: unknown): unknown => JSON.parse(JSON.stringify(v));

describe('parseForm', () => {
  it('decodes what the client encodes exactly as qs.parse does', () => {
    const text = fc.string({ unit: 'binary', maxLength: 30 });
    const name = fc.stringMatching(/^[a-zA-Z][a-zA-Z0-9_]{0,8}$/);
    const params = fc.dictionary(
      name,
      fc.oneof(text, fc.array(text, { minLength: 1, maxLength: 5 }), fc.dictionary(name, fc.oneof(text, fc.array(text, { minLength: 1, maxLength: 3 })), { minKeys: 1, maxKeys: 4 })),
      { maxKeys: 6 },
    );
    fc.assert(
      fc.property(params, fc.constantFrom('indices', 'brackets') as fc.Arbitrary<'indices' | 'brackets'>, (p, arrayFormat) => {
        const body = encodeParams(p, arrayFormat);
        expect(plain(parseForm(body))).toEqual(plain(qs.parse(body, { arrayLimit: 10_000, parameterLimit: 100_000, depth: 3 })));
      }),
      { numRuns: 500 },
    );
  });

  it('gives nested parameters, repeated names and plus-encoded spaces', () => {
    expect(plain(parseForm('data[fullLink]=https%3A%2F%2Fx.example%2F&sort[code]=DESC&ids[]=1&ids[]=2&text=a+b&a=1&a=2'))).toEqual({
      data: { fullLink: 'https://x.example/' },
      sort: { code: 'DESC' },
      ids: ['1', '2'],
      text: 'a b',
      a: ['1', '2'],
    });
    expect(plain(parseForm('ids[5]=b&ids[1]=a'))).toEqual({ ids: ['a', 'b'] });
    expect(parseForm('text=%FF').text).toBe(INVALID_ENCODING);
    expect(Object.getPrototypeOf(parseForm('__proto__[x]=1&constructor[prototype][y]=2'))).toBe(null);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it('takes linear time in the number of items (qs.parse does not)', () => {
    const body = (n: number) => Array.from({ length: n }, (_, i) => `ids[${i}]=${i}`).join('&');
    const time = (n: number) => {
      const t = performance.now();
      parseForm(body(n));
      return performance.now() - t;
    };
    time(10_000);
    const small = Math.max(time(10_000), 1);
    const large = time(80_000);
    expect((parseForm(body(80_000)).ids as string[]).length).toBe(80_000);
    expect(large / small).toBeLessThan(40);
  });
});

describe('fromWire', () => {
  it('maps wire names back to catalog keys and ignores the rest', () => {
    const { input } = fromWire(linkStats, parseForm('ids[]=1&ids[]=2&type=daily&criteria[dateFrom]=2025-01-01 00:00:00&criteria[nope]=1&apiKey=x'));
    expect(plain(input)).toEqual({ ids: ['1', '2'], type: 'daily', dateFrom: '2025-01-01 00:00:00' });
  });

  it('keeps only the first 100 campaign ids, as the service does', () => {
    const ids = Array.from({ length: 150 }, (_, i) => i + 1).join(',');
    const { input } = fromWire(messageList, parseForm(`criteria[campaignIds]=${ids}`));
    expect(input.campaignIds).toHaveLength(100);
  });

  it('names fields whose text cannot be stored', () => {
    expect(fromWire(messageStatus, parseForm('ids=%E0%A4')).problems).toEqual([{ key: 'ids', rule: expect.stringContaining('UTF-8') }]);
    expect(fromWire(messageStatus, parseForm('ids[]=1&ids[]=%00')).problems).toEqual([{ key: 'ids', rule: expect.stringContaining('NUL') }]);
  });
});
