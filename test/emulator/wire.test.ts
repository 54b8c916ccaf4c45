import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { linkStats, messageList, messageStatus } from '../../src/catalog/index.js';
import { encodeForm } from '../../src/client/form-encode.js';
import { ARRAY_LIMIT, FormLimitError, fromWire, INVALID_ENCODING, MAX_DEPTH, MAX_PARAMS, parseRequest as parseForm } from '../../src/emulator/service/wire.js';

const plain = (v: unknown): unknown => JSON.parse(JSON.stringify(v));

describe('parseRequest', () => {
  it('reads back whatever the client writes, in either list form', () => {
    const text = fc.string({ unit: 'binary', maxLength: 30 });
    const name = fc.stringMatching(/^[a-zA-Z][a-zA-Z0-9_]{0,8}$/);
    const params = fc.dictionary(
      name,
      fc.oneof(text, fc.array(text, { minLength: 1, maxLength: 5 }), fc.dictionary(name, fc.oneof(text, fc.array(text, { minLength: 1, maxLength: 3 })), { minKeys: 1, maxKeys: 4 })),
      { maxKeys: 6 },
    );
    // Lone surrogates are sent as U+FFFD (form-encode.ts), so that is what comes back.
    const sent = (v: unknown): unknown => JSON.parse(JSON.stringify(v).replace(/\\ud[89ab][0-9a-f]{2}(?!\\ud[c-f])|(?<!\\ud[89ab][0-9a-f]{2})\\ud[c-f][0-9a-f]{2}/gi, '\ufffd'));
    fc.assert(
      fc.property(params, fc.constantFrom('indices', 'brackets') as fc.Arbitrary<'indices' | 'brackets'>, (p, arrayFormat) => {
        expect(plain(parseForm(encodeForm(p, arrayFormat)))).toEqual(sent(p));
      }),
      { numRuns: 500 },
    );
  });

  it('gives nested parameters, repeated names and plus-encoded spaces; the body over the query', () => {
    expect(plain(parseForm('data[fullLink]=https%3A%2F%2Fx.example%2F&sort[code]=DESC&ids[]=1&ids[]=2&text=a+b&a=1&a=2'))).toEqual({
      data: { fullLink: 'https://x.example/' },
      sort: { code: 'DESC' },
      ids: ['1', '2'],
      text: 'a b',
      a: ['1', '2'],
    });
    expect(plain(parseForm('ids[5]=b&ids[1]=a'))).toEqual({ ids: ['a', 'b'] });
    expect(plain(parseForm('output=json&apiKey=k&text=q', 'text=b'))).toEqual({ output: 'json', apiKey: 'k', text: 'b' });
    expect(parseForm('text=%FF').text).toBe(INVALID_ENCODING);
    // Names that are Object.prototype's own are dropped, as any unknown name is, and pollute nothing.
    expect(plain(parseForm('__proto__[x]=1&constructor[prototype][y]=2&toString=3&text=q', 'hasOwnProperty=4'))).toEqual({ text: 'q' });
    expect(({} as Record<string, unknown>).x).toBeUndefined();
    expect(({} as Record<string, unknown>).y).toBeUndefined();
  });

  it('keeps indices up to its array limit a list, and reads higher ones in index order all the same', () => {
    const ids = Array.from({ length: 100 }, (_, i) => `ids[${i}]=${i + 1}`).join('&');
    expect(parseForm(ids).ids).toEqual(Array.from({ length: 100 }, (_, i) => String(i + 1)));
    const high = fromWire(messageStatus, parseForm(`ids[${ARRAY_LIMIT + 5}]=9&ids[3]=7`));
    expect(high.input.ids).toEqual({ 3: '7', [ARRAY_LIMIT + 5]: '9' });
    const campaigns = fromWire(messageList, parseForm(`criteria[campaignIds][${ARRAY_LIMIT}]=9&criteria[campaignIds][0]=7`));
    expect(campaigns.input.campaignIds).toEqual(['7', '9']);
  });

  it('refuses more parameters or deeper names than its limits, naming the rule', () => {
    const many = (n: number) => Array.from({ length: n }, (_, i) => `ids[]=${i}`).join('&');
    expect(() => parseForm(many(MAX_PARAMS))).not.toThrow();
    expect(() => parseForm(many(MAX_PARAMS + 1))).toThrow(new FormLimitError(`a request carries at most ${MAX_PARAMS} parameters`));
    expect(() => parseForm(many(MAX_PARAMS / 2), many(MAX_PARAMS / 2 + 1))).toThrow(FormLimitError);
    const deep = `data${'[a]'.repeat(MAX_DEPTH + 1)}=1`;
    expect(() => parseForm(`${deep}&x=1`)).toThrow(new FormLimitError(`${deep.split('=')[0]}: parameter names nest at most ${MAX_DEPTH} brackets deep`));
    expect(() => parseForm(`data${'[a]'.repeat(MAX_DEPTH)}=1`)).not.toThrow();
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
    expect(fromWire(messageStatus, parseForm('ids=%E0%A4')).problems).toEqual([{ key: 'ids', wire: 'ids', rule: expect.stringContaining('UTF-8') }]);
    expect(fromWire(messageStatus, parseForm('ids[]=1&ids[]=%00')).problems).toEqual([{ key: 'ids', wire: 'ids', rule: expect.stringContaining('NUL') }]);
  });
});
