// Property-based checks with fast-check: what the request builder encodes,
// qs decodes to the same values, for any Unicode text and parameter set; and
// normalising an answer never throws, whatever JSON arrives.
import fc from 'fast-check';
import qs from 'qs';
import { describe, expect, it } from 'vitest';
import { OPERATIONS, validateInput } from '../../src/catalog/index.js';
import { encodeForm } from '../../src/client/form-encode.js';
import { buildRequest, encodeParams, formEncode, serviceUrl } from '../../src/client/request.js';
import { normalize } from '../../src/client/normalize.js';

const op = (id: string) => OPERATIONS.find((o) => o.id === id)!;
const text = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 200 });

describe('request builder round-trips through qs', () => {
  it('any Unicode message text and sender', () => {
    fc.assert(
      // A message text of white space alone is refused before encoding (validation.test.ts): the others are any text.
      fc.property(text.filter((t) => t.trim() !== ''), fc.option(text, { nil: undefined }), fc.option(text, { nil: undefined }), (t, from, name) => {
        // Through the same rules the client applies before encoding.
        const { values, issues } = validateInput(op('message.send'), { recipient: '+7 701 123-45-67', text: t, from, name }, { now: new Date() });
        expect(issues).toEqual([]);
        const body = encodeParams(op('message.send'), values);
        expect(qs.parse(body).recipient).toBe('77011234567');
        expect(body).toMatch(/^[A-Za-z0-9%._~\-=&[\]]*$/);
        const decoded = qs.parse(body);
        expect(decoded.text).toBe(t);
        expect(decoded.from).toBe(from);
        expect((decoded.params as Record<string, unknown> | undefined)?.name).toBe(name);
      }),
      { numRuns: 500 },
    );
  });

  it('any link list criteria, paging and sort', () => {
    const sortField = fc.constantFrom('createTs', 'expirationDate', 'clickCnt', 'code', 'fullLink');
    fc.assert(
      fc.property(
        fc.record(
          {
            status: fc.constantFrom(0, 1),
            query: text,
            pageSize: fc.constantFrom(25, 50, 100),
            currentPage: fc.nat(),
            sort: fc.dictionary(sortField, fc.constantFrom('ASC', 'DESC'), { maxKeys: 5 }),
          },
          { requiredKeys: [] },
        ),
        (input) => {
          const { values: checked, issues } = validateInput(op('link.list'), input, { now: new Date() });
          expect(issues).toEqual([]);
          const values = input;
          const decoded = qs.parse(encodeParams(op('link.list'), checked));
          const criteria = (decoded.criteria ?? {}) as Record<string, string>;
          const pagination = (decoded.pagination ?? {}) as Record<string, string>;
          if (values.status !== undefined) expect(criteria.status).toBe(String(values.status));
          if (values.query !== undefined) expect(criteria.query).toBe(values.query);
          if (values.pageSize !== undefined) expect(pagination.pageSize).toBe(String(values.pageSize));
          if (values.currentPage !== undefined) expect(pagination.currentPage).toBe(String(values.currentPage));
          if (values.sort && Object.keys(values.sort).length) expect(decoded.sort).toEqual(values.sort);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('any id lists, in every wire form', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 2 ** 31 }), { minLength: 1, maxLength: 100 }), (ids) => {
        for (const id of ['link.delete', 'link.stats', 'message.status']) {
          const o = op(id);
          const sent = id === 'link.stats' ? ids.slice(0, 5) : ids;
          const decoded = qs.parse(encodeParams(o, { ids: sent, type: 'daily' }), { arrayLimit: 1000 });
          const got = typeof decoded.ids === 'string' ? decoded.ids.split(',') : (decoded.ids as string[]);
          expect(got.map(Number)).toEqual(sent);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('form encoding', () => {
  it("encodes RFC 3986's reserved characters and sends a lone surrogate as U+FFFD", () => {
    expect(encodeForm({ text: "a b!'()*~-._" })).toBe('text=a%20b%21%27%28%29%2A~-._');
    expect(encodeForm({ text: 'x\uD800y', list: ['\uDC00'] })).toBe('text=x%EF%BF%BDy&list[0]=%EF%BF%BD');
  });
});

describe('normalisation', () => {
  it('never throws on any JSON value, for every result shape', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        for (const o of OPERATIONS) normalize(o.result, value);
        for (const o of OPERATIONS) normalize(o.result, { items: [value, { id: value }], totalItemCount: value, totals: value });
      }),
      { numRuns: 1000 },
    );
  });

  it('turns integer strings into numbers and leaves everything else as it came', () => {
    fc.assert(
      fc.property(fc.integer(), fc.string(), (n, s) => {
        const out = normalize(op('link.get').result, { id: String(n), code: s, clickCnt: s, extra: String(n) }) as Record<string, unknown>;
        expect(out.id).toBe(n);
        expect(out.code).toBe(s);
        expect(out.extra).toBe(String(n));
        expect(out.clickCnt).toBe(/^-?\d+$/.test(s.trim()) && Number.isSafeInteger(Number(s.trim())) ? Number(s.trim()) : s);
      }),
    );
  });
});

describe('request URL', () => {
  /** Any UTF-16 text: lone surrogates, spaces and the characters the two encodings treat differently included. */
  const anyText = fc.string({
    unit: fc.oneof(
      fc.constantFrom(' ', '!', "'", '(', ')', '~', '*', '-', '.', '_', '+', '%', '&', '=', '#', '?', '/'),
      fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
      fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }),
    ),
    maxLength: 40,
  });

  it('writes a query value as URLSearchParams does', () => {
    fc.assert(
      fc.property(anyText, (value) => {
        expect(formEncode(value)).toBe(new URLSearchParams({ v: value }).toString().slice(2));
      }),
      { numRuns: 2000 },
    );
  });

  it('is the URL searchParams.set() made, for any key and base URL', () => {
    const base = fc.constantFrom('http://127.0.0.1:8080', 'https://api.example.com/', 'https://api.example.com/prefix//', 'http://[::1]:9/a/b?x=1#f', 'https://user:pw@host.example:443/p');
    fc.assert(
      fc.property(base, anyText, fc.constantFrom('Link/Get', 'Message/SendSmsMessage'), (baseUrl, apiKey, path) => {
        const url = serviceUrl(baseUrl, path);
        url.searchParams.set('output', 'json');
        url.searchParams.set('api', 'v1');
        const redacted = new URL(url);
        url.searchParams.set('apiKey', apiKey);
        redacted.searchParams.set('apiKey', '***');
        const req = buildRequest(path, path, '', { baseUrl, apiKey });
        expect(req.url).toBe(url.toString());
        expect(req.redactedUrl).toBe(redacted.toString());
      }),
      { numRuns: 500 },
    );
  });
});
