// Parameter and result pieces that several operations share.

import { columnInfo } from './columns.js';
import type { ParamSpec, Shape } from './types.js';

export const PAGE_SIZES = [25, 50, 100] as const;

export function pageSizeParam() {
  return {
    key: 'pageSize',
    wire: 'pagination[pageSize]',
    type: 'integer',
    oneOf: PAGE_SIZES,
    doc: 'pagination[pageSize]: 25, 50 or 100',
    cli: { flag: '--page-size <n>', help: 'items per page: 25 (default), 50 or 100; --all uses 100 unless given' },
  } as const satisfies ParamSpec;
}

export function currentPageParam() {
  return {
    key: 'currentPage',
    wire: 'pagination[currentPage]',
    type: 'integer',
    min: 0,
    doc: 'pagination[currentPage]: page numbering starts at 0',
    cli: { flag: '--page <n>', help: 'page number, starting at 0' },
  } as const satisfies ParamSpec;
}

export function sortParam<const F extends readonly string[]>(fields: F) {
  return {
    key: 'sort',
    wire: 'sort',
    type: 'sort',
    sortFields: fields,
    doc: `sort[<field>]: ASC or DESC; fields: ${fields.join(', ')}`,
    cli: {
      flag: '--sort <field[:asc|desc]>',
      help: `sort by ${fields.map((f) => (columnInfo(f).header === f ? f : `${f} (${columnInfo(f).header})`)).join(', ')}: the field or its column header (repeatable; asc by default)`,
    },
  } as const satisfies ParamSpec;
}

export const STATUS_ALIASES = { active: 1, inactive: 0 } as const;
export const MODERATOR_ALIASES = { approved: 1, blocked: 0 } as const;

export function linkStatusParam(wire: string, help: string) {
  return {
    key: 'status',
    wire,
    type: 'integer',
    oneOf: [0, 1],
    doc: `${wire}: 0 inactive, 1 active`,
    cli: { flag: '--status <status>', help, aliases: STATUS_ALIASES },
  } as const satisfies ParamSpec;
}

export function commentParam() {
  return {
    key: 'comment',
    wire: 'data[comment]',
    type: 'string',
    maxLength: 255,
    doc: 'data[comment]: max 255 characters',
    cli: { flag: '--comment <text>', help: 'your comment, at most 255 characters' },
  } as const satisfies ParamSpec;
}

/** What the help of every time flag ends with: the forms and the rule of a sign are written once, in `smslink help time`. */
export const TIMES = 'times: `smslink help time`';

export function expiresParam(help: string) {
  return {
    key: 'expirationDate',
    wire: 'data[expirationDate]',
    type: 'date',
    doc: 'data[expirationDate]: YYYY-MM-DD; valid until the end of that day in the user time zone',
    cli: { flag: '--expires <date>', help: `${help} (${TIMES})` },
  } as const satisfies ParamSpec;
}

/** A range criterion pair (…From / …To) in `YYYY-MM-DD HH:MM:SS`. */
export function datetimeRange<const B extends string>(base: B, flagBase: string, what: string) {
  return [
    {
      key: `${base}From`,
      wire: `criteria[${base}From]`,
      type: 'datetime',
      doc: `criteria[${base}From]: YYYY-MM-DD HH:MM:SS`,
      cli: { flag: `--${flagBase}-from <time>`, help: `${what} from this time, e.g. 7d or 2026-11-01 (${TIMES})`, fillTime: 'start' },
    },
    {
      key: `${base}To`,
      wire: `criteria[${base}To]`,
      type: 'datetime',
      doc: `criteria[${base}To]: YYYY-MM-DD HH:MM:SS`,
      cli: { flag: `--${flagBase}-to <time>`, help: `${what} up to this time, e.g. 1d or 2026-11-30 (${TIMES})`, fillTime: 'end' },
    },
  ] as const satisfies readonly ParamSpec[];
}

export const LINK_SHAPE = {
  object: {
    id: 'int',
    code: 'string',
    shortLink: 'string',
    fullLink: 'string',
    status: 'int',
    moderatorStatus: 'int',
    clickCnt: 'int',
    redirectCnt: 'int',
    createTs: 'string',
    // Sent by the live service beyond the contract (real-service-notes.md).
    updateTs: 'string',
    domain: 'string',
    expirationDate: 'string',
    comment: 'string',
    moderatorComment: 'string',
  },
} as const satisfies Shape;

export const MESSAGE_SHAPE = {
  object: {
    id: 'int',
    campaignId: 'int',
    segNum: 'int',
    segUserBuy: 'float',
    from: 'string',
    to: 'string',
    text: 'string',
    status: 'string',
    groups: 'string',
    uuid: 'string',
    countryA2: 'string',
    operatorName: 'string',
    startSendTs: 'string',
    statusUpdateTs: 'string',
  },
} as const satisfies Shape;

export function pageShape<const I extends Shape>(item: I): { object: { items: { array: I }; totalItemCount: 'int' } } {
  return { object: { items: { array: item }, totalItemCount: 'int' } };
}

/** A link's `status` is the user's status (0 inactive, 1 active): screens say it in words. */
export const LINK_KINDS = { status: 'linkStatus' } as const;
