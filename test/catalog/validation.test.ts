// Every rule of the contract, checked before anything is sent: one table row
// per rule, each naming the parameter that breaks it.
import { describe, expect, it } from 'vitest';
import { OPERATIONS, validateInput, type OperationSpec } from '../../src/catalog/index.js';

const NOW = new Date(2026, 10, 21, 12, 0, 0); // local time, like the CLI
const op = (id: string) => OPERATIONS.find((o) => o.id === id) as OperationSpec;
const ids = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

type Row = [opId: string, input: Record<string, unknown>, key: string | null, rule?: RegExp];

const ROWS: Row[] = [
  // Link/Create
  ['link.create', { fullLink: 'https://example.com/a?b=1' }, null],
  ['link.create', { fullLink: 'www.example.com/path' }, null],
  ['link.create', {}, 'fullLink', /required/],
  ['link.create', { fullLink: 'example.com' }, 'fullLink', /scheme .* www\./],
  ['link.create', { fullLink: 'ftp://example.com/file' }, 'fullLink', /^only http and https links can be shortened$/],
  ['link.create', { fullLink: 'mailto:someone@example.com' }, 'fullLink', /^only http and https links can be shortened$/],
  ['link.create', { fullLink: 'localhost:3000/x' }, 'fullLink', /scheme .* www\./],
  ['link.create', { fullLink: 'https://exa mple.com' }, 'fullLink', /URL/],
  ['link.create', { fullLink: 'www.' }, 'fullLink', /URL/],
  ['link.create', { fullLink: 'www...' }, 'fullLink', /URL/],
  ['link.create', { fullLink: 'https://.' }, 'fullLink', /URL/],
  ['link.create', { fullLink: 'https://a..b/x' }, 'fullLink', /URL/],
  ['link.create', { fullLink: 'https://example.com./x' }, null],
  ['link.create', { fullLink: 'http://10.0.0.1:8080/x' }, null],
  ['link.create', { fullLink: 'https://example.com', status: 2 }, 'status', /0 or 1/],
  ['link.create', { fullLink: 'https://example.com', status: 0 }, null],
  ['link.create', { fullLink: 'https://example.com', expirationDate: '2026-02-29' }, 'expirationDate', /real date/],
  ['link.create', { fullLink: 'https://example.com', expirationDate: '2028-02-29' }, null],
  ['link.create', { fullLink: 'https://example.com', expirationDate: '2026-1-5' }, 'expirationDate', /YYYY-MM-DD/],
  ['link.create', { fullLink: 'https://example.com', comment: 'x'.repeat(256) }, 'comment', /at most 255 characters \(got 256\)/],
  ['link.create', { fullLink: 'https://example.com', comment: '😀'.repeat(255) }, null],
  ['link.create', { fullLink: 'https://example.com', colour: 'red' }, 'colour', /not a parameter/],
  // Link/Get
  ['link.get', { id: 5 }, null],
  ['link.get', { code: 'ddoj' }, null],
  ['link.get', {}, 'id|code|shortLink', /exactly one/],
  ['link.get', { id: 5, code: 'ddoj' }, 'id|code|shortLink', /exactly one/],
  ['link.get', { id: 0 }, 'id', /1 or more/],
  ['link.get', { id: 'abc' }, 'id', /whole number/],
  // Link/List
  ['link.list', { pageSize: 50, currentPage: 0, sort: { createTs: 'desc', code: 'ASC' } }, null],
  ['link.list', { pageSize: 30 }, 'pageSize', /25, 50 or 100/],
  ['link.list', { currentPage: -1 }, 'currentPage', /0 or more/],
  ['link.list', { sort: { id: 'ASC' } }, 'sort', /cannot sort by "id"; fields: createTs, expirationDate, clickCnt, code, fullLink/],
  ['link.list', { sort: { code: 'UP' } }, 'sort', /asc or desc/],
  ['link.list', { createTsFrom: '2026-13-01' }, 'createTsFrom', /real date/],
  ['link.list', { createTsTo: '2026-01-01' }, 'createTsTo', /YYYY-MM-DD HH:MM:SS/],
  ['link.list', { createTsTo: '2026-01-01 24:00:00' }, 'createTsTo', /real date and time/],
  ['link.list', { status: 1, moderatorStatus: 3 }, 'moderatorStatus', /0 or 1/],
  // Link/Update
  ['link.update', { id: 7, status: 0 }, null],
  ['link.update', { status: 0 }, 'id', /required/],
  ['link.update', { id: 7, comment: 'y'.repeat(300) }, 'comment', /255/],
  // Link/Delete
  ['link.delete', { ids: [1, 2] }, null],
  ['link.delete', { ids: [] }, 'ids', /is required/],
  ['link.delete', { ids: [''] }, 'ids', /is required/],
  ['message.status', { ids: ' , ' }, 'ids', /is required/],
  // A nested wire value (ids[a][b]=1) decodes to an object without a prototype: checked, never thrown on.
  ['link.delete', { ids: [Object.assign(Object.create(null) as object, { b: '1' })] }, 'ids', /positive whole numbers/],
  ['link.delete', { ids: ['x'] }, 'ids', /positive whole numbers/],
  // Link/GetStats
  ['link.stats', { ids: ids(5), type: 'daily' }, null],
  ['link.stats', { ids: ids(6), type: 'daily' }, 'ids', /at most 5 ids per request \(got 6\)/],
  ['link.stats', { ids: [1], type: 'weekly' }, 'type', /monthly, daily, hourly, minute/],
  ['link.stats', { ids: [1] }, 'type', /required/],
  ['link.stats', { ids: [1], type: 'daily', dateFrom: '2026-11-01' }, 'dateFrom', /HH:MM:SS/],
  ['link.stats', { ids: [1], type: 'daily', dateFrom: '2026-11-02 00:00:00', dateTo: '2026-11-01 00:00:00' }, 'dateTo', /not be before/],
  // Link/GetLinks
  ['link.campaign', { campaignId: 9001 }, null],
  ['link.campaign', { campaignId: 0 }, 'campaignId', /1 or more/],
  // Message/SendSmsMessage
  ['message.send', { recipient: '+7 (701) 123-45-67', text: 'hi' }, null],
  ['message.send', { recipient: '123456', text: 'hi' }, 'recipient', /7 to 15 digits/],
  ['message.send', { recipient: '1234567890123456', text: 'hi' }, 'recipient', /7 to 15 digits/],
  ['message.send', { recipient: '7701abc4567', text: 'hi' }, 'recipient', /digits/],
  ['message.send', { recipient: '77011234567', text: '' }, 'text', /not be empty/],
  ['message.send', { recipient: '77011234567' }, 'text', /required/],
  ['message.send', { recipient: '77011234567', text: 'hi', validity: 59 }, 'validity', /between 60 and 1440/],
  ['message.send', { recipient: '77011234567', text: 'hi', validity: 1441 }, 'validity', /between 60 and 1440/],
  ['message.send', { recipient: '77011234567', text: 'hi', validity: 1440 }, null],
  ['message.send', { recipient: '77011234567', text: 'hi', deferredToTs: '2026-11-21 12:30:00' }, 'deferredToTs', /more than 1 hour and at most 14 days from now/],
  ['message.send', { recipient: '77011234567', text: 'hi', deferredToTs: '2026-11-21 13:00:01' }, null],
  ['message.send', { recipient: '77011234567', text: 'hi', deferredToTs: '2026-12-05 11:59:59' }, null],
  ['message.send', { recipient: '77011234567', text: 'hi', deferredToTs: '2026-12-05 12:00:01' }, 'deferredToTs', /14 days/],
  ['message.send', { recipient: '77011234567', text: 'hi', shortenLinks: 2 }, 'shortenLinks', /0 or 1/],
  // Message/GetSMSStatus
  ['message.status', { ids: ids(100) }, null],
  ['message.status', { ids: ids(101) }, 'ids', /at most 100/],
  ['message.status', { ids: '1,2,3' }, null],
  // Message/List
  ['message.list', { campaignIds: ids(100), status: 'delivrd', campaignStatus: 'SENT', pageSize: 100 }, null],
  ['message.list', { campaignIds: ids(101) }, 'campaignIds', /at most 100/],
  ['message.list', { status: 'SENT_OK' }, 'status', /one of NEW, ENQUEUD/],
  ['message.list', { campaignStatus: 'WHATEVER' }, 'campaignStatus', /one of NEW, MODERATION/],
  ['message.list', { sort: { segNum: 'desc' } }, null],
  ['message.list', { sort: { clickCnt: 'desc' } }, 'sort', /cannot sort by "clickCnt"/],
  ['message.list', { startSendTsFrom: '2026-11-01' }, 'startSendTsFrom', /HH:MM:SS/],
  ['message.list', { to: '7701' }, null],
];

describe('validation of every contract rule', () => {
  it.each(ROWS)('%s %j -> %s', (opId, input, key, rule) => {
    const { issues } = validateInput(op(opId), input, { now: NOW });
    if (key === null) {
      expect(issues).toEqual([]);
    } else {
      expect(issues.map((i) => i.key)).toContain(key);
      const issue = issues.find((i) => i.key === key)!;
      if (rule) expect(issue.rule).toMatch(rule);
    }
  });

  it('tells the emulator which service code each problem gets', () => {
    expect(validateInput(op('link.create'), {}, { now: NOW }).issues[0].code).toBe(11);
    expect(validateInput(op('link.get'), {}, { now: NOW }).issues[0].code).toBe(12);
    expect(validateInput(op('link.stats'), { ids: ids(6), type: 'daily' }, { now: NOW }).issues[0].code).toBe(12);
    expect(validateInput(op('message.status'), {}, { now: NOW }).issues[0].code).toBe(2);
    expect(validateInput(op('link.create'), { fullLink: 'nope' }, { now: NOW }).issues[0].code).toBe(1);
  });

  it('coerces wire strings and normalises phone numbers', () => {
    const { values } = validateInput(op('message.send'), { recipient: '+7 (701) 123-45-67', text: 'hi', validity: '120' }, { now: NOW });
    expect(values).toEqual({ recipient: '77011234567', text: 'hi', validity: 120 });
    expect(validateInput(op('link.list'), { sort: { createts: 'desc' } }, { now: NOW }).values.sort).toEqual({ createTs: 'DESC' });
  });
});

describe('the contract for the client, the live service for the emulator', () => {
  const LIVE = { now: NOW, live: true };

  it('refuses an empty optional value by the contract, and reads it as absent as the live service does', () => {
    const send = { recipient: '77011234567', text: 'hi', from: '', name: '' };
    expect(validateInput(op('message.send'), send, { now: NOW }).issues.map((i) => i.key)).toEqual(['from']);
    expect(validateInput(op('message.send'), send, LIVE)).toEqual({ values: { recipient: '77011234567', text: 'hi' }, issues: [] });
    const create = { fullLink: 'https://example.com', expirationDate: '' };
    expect(validateInput(op('link.create'), create, { now: NOW }).issues.map((i) => i.key)).toEqual(['expirationDate']);
    expect(validateInput(op('link.create'), create, LIVE).issues).toEqual([]);
  });

  it('refuses a required value sent empty either way', () => {
    for (const ctx of [{ now: NOW }, LIVE]) {
      expect(validateInput(op('link.create'), { fullLink: '' }, ctx).issues.map((i) => [i.key, i.code])).toEqual([['fullLink', 1]]);
      expect(validateInput(op('message.send'), { recipient: '', text: '' }, ctx).issues.map((i) => i.key)).toEqual(['recipient', 'text']);
    }
  });

  it('refuses a text of white space alone for the client (a blank SMS is charged all the same); the live service takes it', () => {
    for (const text of ['   ', '\n', ' \t\r\n ']) {
      expect(validateInput(op('message.send'), { recipient: '77011234567', text }, { now: NOW }).issues.map((i) => [i.key, i.rule])).toEqual([
        ['text', 'must not be blank (spaces or line breaks alone)'],
      ]);
      expect(validateInput(op('message.send'), { recipient: '77011234567', text }, LIVE).issues).toEqual([]);
    }
    expect(validateInput(op('message.send'), { recipient: '77011234567', text: ' x ' }, { now: NOW }).issues).toEqual([]);
  });

  it('sorts Message/List by id on the live service only', () => {
    expect(validateInput(op('message.list'), { sort: { id: 'asc' } }, { now: NOW }).issues[0].rule).toMatch(/cannot sort by "id"; fields: campaignId,/);
    expect(validateInput(op('message.list'), { sort: { id: 'asc' } }, LIVE)).toEqual({ values: { sort: { id: 'ASC' } }, issues: [] });
    expect(validateInput(op('link.list'), { sort: { id: 'asc' } }, LIVE).issues[0].key).toBe('sort');
  });
});
