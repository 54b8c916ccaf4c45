// Module Link of service-api.md: seven operations on short links.

import {
  commentParam,
  currentPageParam,
  expiresParam,
  LINK_KINDS,
  LINK_SHAPE,
  linkStatusParam,
  MODERATOR_ALIASES,
  pageShape,
  pageSizeParam,
  sortParam,
  TIMES,
} from './shared.js';
import { define, type CampaignLink, type CreateLinkResult, type DeleteLinksResult, type InputOf, type Link, type LinkStatsResult, type Page, type UpdateLinkResult } from './types.js';
import { normalize } from '../client/normalize.js';

export const LINK_SORT_FIELDS = ['createTs', 'expirationDate', 'clickCnt', 'code', 'fullLink'] as const;
export const STATS_TYPES = ['monthly', 'daily', 'hourly', 'minute'] as const;
export type LinkSortField = (typeof LINK_SORT_FIELDS)[number];
export type StatsType = (typeof STATS_TYPES)[number];

/** Maximum interval per stats type (service-api.md Limits), in ms. */
export const STATS_MAX_SPAN_MS = {
  monthly: 3 * 365 * 86_400_000,
  daily: 90 * 86_400_000,
  hourly: 7 * 86_400_000,
  minute: 3 * 3_600_000,
} as const;

/**
 * Where the maximum interval of `type` reaches from a wall time (ms, the wall
 * clock read as UTC), forwards or back: 3 calendar years for monthly, so that
 * one from January 1st ends with December 31st whatever the leap days.
 */
export function statsSpan(type: StatsType, wall: number, direction: 1 | -1 = 1): number {
  if (type !== 'monthly') return wall + direction * STATS_MAX_SPAN_MS[type];
  const d = new Date(wall);
  d.setUTCFullYear(d.getUTCFullYear() + 3 * direction);
  return d.getTime();
}

const LINK_COLUMNS = ['id', 'code', 'shortLink', 'fullLink', 'status', 'moderatorStatus', 'clickCnt', 'createTs', 'expirationDate', 'comment'];

export const linkCreate = define<CreateLinkResult>()({
  id: 'link.create',
  module: 'Link',
  operation: 'Create',
  method: 'createLink',
  command: ['link', 'create'],
  summary: 'Shorten a URL',
  idempotent: false,
  params: [
    {
      key: 'fullLink',
      wire: 'data[fullLink]',
      type: 'url',
      required: true,
      doc: 'data[fullLink]: valid URL, with a scheme or starting with www.',
      cli: { arg: '<fullLink>', help: 'the URL to shorten (https://... or www....)' },
    },
    linkStatusParam('data[status]', 'active (default) or inactive; 1 or 0'),
    expiresParam('last day the link works, e.g. +30d or 2026-12-31; default: never expires'),
    commentParam(),
  ],
  result: { object: { id: 'int', code: 'string', shortLink: 'string' } },
  output: { rows: 'self', columns: ['id', 'code', 'shortLink'], primary: 'shortLink' },
});

export const linkGet = define<Link>()({
  id: 'link.get',
  module: 'Link',
  operation: 'Get',
  method: 'getLink',
  command: ['link', 'get'],
  summary: 'Show one short link',
  idempotent: true,
  params: [
    { key: 'id', wire: 'id', type: 'integer', min: 1, doc: 'id: link identifier', cli: { flag: '--id', help: 'treat <link> as an id' } },
    { key: 'code', wire: 'code', type: 'string', minLength: 1, doc: 'code: link code', cli: { flag: '--code', help: 'treat <link> as a code' } },
    {
      key: 'shortLink',
      wire: 'shortLink',
      type: 'string',
      minLength: 1,
      doc: 'shortLink: the short URL',
      cli: { flag: '--short-link', help: 'treat <link> as a short link' },
    },
  ],
  exactlyOne: ['id', 'code', 'shortLink'],
  result: LINK_SHAPE,
  output: { rows: 'self', columns: LINK_COLUMNS, primary: 'shortLink', kinds: LINK_KINDS },
});

export const linkList = define<Page<Link>>()({
  id: 'link.list',
  module: 'Link',
  operation: 'List',
  method: 'listLinks',
  command: ['link', 'list'],
  summary: 'List and search short links',
  idempotent: true,
  params: [
    linkStatusParam('criteria[status]', 'only active or inactive links (1 or 0)'),
    {
      key: 'moderatorStatus',
      wire: 'criteria[moderatorStatus]',
      type: 'integer',
      oneOf: [0, 1],
      doc: 'criteria[moderatorStatus]: 0 blocked, 1 approved',
      cli: { flag: '--moderator-status <status>', help: 'blocked or approved (0 or 1)', aliases: MODERATOR_ALIASES },
    },
    {
      key: 'createTsFrom',
      wire: 'criteria[createTsFrom]',
      type: 'date',
      doc: 'criteria[createTsFrom]: YYYY-MM-DD',
      cli: { flag: '--created-from <time>', help: `created on or after the day of this time, e.g. 7d or 2026-11-01 (${TIMES})` },
    },
    {
      key: 'createTsTo',
      wire: 'criteria[createTsTo]',
      type: 'datetime',
      doc: 'criteria[createTsTo]: YYYY-MM-DD HH:MM:SS',
      cli: { flag: '--created-to <time>', help: `created up to this time, e.g. 1d or 2026-11-30 (${TIMES})`, fillTime: 'end' },
    },
    {
      key: 'query',
      wire: 'criteria[query]',
      type: 'string',
      doc: 'criteria[query]: matches code, tracking code or comment',
      cli: { flag: '--query <text>', help: 'search codes and comments' },
    },
    pageSizeParam(),
    currentPageParam(),
    sortParam(LINK_SORT_FIELDS),
  ],
  result: pageShape(LINK_SHAPE),
  output: {
    rows: 'items',
    columns: ['id', 'code', 'shortLink', 'fullLink', 'status', 'clickCnt', 'createTs', 'expirationDate', 'comment'],
    primary: 'id',
    kinds: LINK_KINDS,
  },
});

export const linkUpdate = define<UpdateLinkResult>()({
  id: 'link.update',
  module: 'Link',
  operation: 'Update',
  method: 'updateLink',
  command: ['link', 'update'],
  summary: 'Change the status, expiry or comment of a link',
  idempotent: true,
  params: [
    { key: 'id', wire: 'id', type: 'integer', min: 1, required: true, doc: 'id: link identifier', cli: { arg: '<link>', help: 'link id, code or short link' } },
    linkStatusParam('data[status]', 'active or inactive (1 or 0); kept when not given'),
    expiresParam('new last day, e.g. +30d or 2026-12-31; kept when not given'),
    commentParam(),
  ],
  // Documented: the short link string. Live: `true`. The client turns both into {shortLink}.
  result: 'any',
  finish: (data: unknown): UpdateLinkResult => ({ shortLink: typeof data === 'string' && data !== '' ? data : null }),
  output: { rows: 'self', columns: ['id', 'shortLink', 'status', 'expirationDate', 'comment'], primary: 'shortLink', kinds: LINK_KINDS },
});

export const linkDelete = define<DeleteLinksResult>()({
  id: 'link.delete',
  module: 'Link',
  operation: 'Delete',
  method: 'deleteLinks',
  command: ['link', 'delete'],
  summary: 'Delete links',
  idempotent: true,
  params: [
    {
      key: 'ids',
      wire: 'ids',
      type: 'ids',
      required: true,
      list: 'indices',
      doc: 'ids: array sent as ids[0], ids[1], ...',
      cli: { arg: '<link...>', help: 'link ids, codes or short links (space- or comma-separated; - reads stdin)' },
    },
  ],
  result: { object: { processed: { array: 'int' }, notProcessed: { array: 'int' } } },
  // Live: 98 (a bulk operation partly done) and 99 (nothing processed) carry what code 0 does.
  resultCodes: [98, 99],
  finish: (r: Partial<DeleteLinksResult> | null): DeleteLinksResult => ({
    processed: Array.isArray(r?.processed) ? r.processed : [],
    notProcessed: Array.isArray(r?.notProcessed) ? r.notProcessed : [],
  }),
  output: { rows: 'self', columns: ['processed', 'notProcessed'], primary: 'processed' },
});

export const linkStats = define<LinkStatsResult>()({
  id: 'link.stats',
  module: 'Link',
  operation: 'GetStats',
  method: 'getLinkStats',
  command: ['link', 'stats'],
  summary: 'Click statistics per period',
  idempotent: true,
  params: [
    {
      key: 'ids',
      wire: 'ids',
      type: 'ids',
      required: true,
      constraint: true,
      maxItems: 5,
      list: 'brackets',
      doc: 'ids: ids[] per identifier; at most 5',
      cli: { arg: '<link...>', help: 'link ids, codes or short links (more than 5 are split into requests of 5)' },
    },
    {
      key: 'type',
      wire: 'type',
      type: 'string',
      required: true,
      constraint: true,
      oneOf: STATS_TYPES,
      doc: 'type: monthly, daily, hourly or minute',
      // Required by the service; the CLI sends daily when --type is not given (src/cli/link-stats.ts).
      cli: { flag: '--type <type>', help: 'monthly, daily, hourly or minute (default: daily)' },
    },
    {
      key: 'dateFrom',
      wire: 'criteria[dateFrom]',
      type: 'datetime',
      doc: 'criteria[dateFrom]: YYYY-MM-DD HH:MM:SS',
      cli: { flag: '--since <time>', help: `start, e.g. 7d or 2026-11-01 (alias --from; ${TIMES})`, fillTime: 'start' },
    },
    {
      key: 'dateTo',
      wire: 'criteria[dateTo]',
      type: 'datetime',
      doc: 'criteria[dateTo]: YYYY-MM-DD HH:MM:SS',
      cli: { flag: '--until <time>', help: `end, e.g. 1d or 2026-11-30 (alias --to; ${TIMES})`, fillTime: 'end' },
    },
  ],
  crossCheck: (input: Record<string, unknown>) =>
    typeof input.dateFrom === 'string' && typeof input.dateTo === 'string' && input.dateTo < input.dateFrom
      ? [['dateTo', `must not be before ${input.dateFrom}`]]
      : [],
  result: {
    object: {
      items: { array: { object: { param: 'string' }, rest: 'int' } },
      totals: 'any',
    },
  },
  finish: normalizeStats,
  output: { rows: 'items', columns: ['param'], primary: 'param' },
});

export const linkCampaign = define<CampaignLink[]>()({
  id: 'link.campaign',
  module: 'Link',
  operation: 'GetLinks',
  method: 'getCampaignLinks',
  command: ['link', 'campaign'],
  summary: "List a campaign's short links with click and redirect counts",
  idempotent: true,
  params: [
    {
      key: 'campaignId',
      wire: 'campaignId',
      type: 'integer',
      min: 1,
      required: true,
      doc: 'campaignId: integer',
      cli: { arg: '<campaignId>', help: 'campaign id (from message send)' },
    },
  ],
  result: {
    array: {
      object: { id: 'int', code: 'string', fullLink: 'string', shortLink: 'string', clickCnt: 'int', redirectCnt: 'int', comment: 'string' },
    },
  },
  finish: (r: CampaignLink[] | null) => (Array.isArray(r) ? r : []),
  output: { rows: 'array', columns: ['id', 'code', 'shortLink', 'fullLink', 'clickCnt', 'redirectCnt', 'comment'], primary: 'id' },
});

/** Accepts both documented (totals: string) and live (totals: object) GetStats shapes. */
function normalizeStats(r: LinkStatsResult | null): LinkStatsResult {
  const items = Array.isArray(r?.items) ? r.items : [];
  let totals: LinkStatsResult['totals'] = r?.totals ?? {};
  if (typeof totals === 'string' && /^-?\d+$/.test(totals)) totals = Number(totals);
  else if (totals && typeof totals === 'object') totals = normalize({ object: {}, rest: 'int' }, totals) as Record<string, number>;
  return { items, totals };
}

export const LINK_OPERATIONS = [linkCreate, linkGet, linkList, linkUpdate, linkDelete, linkStats, linkCampaign] as const;

export type CreateLinkInput = InputOf<typeof linkCreate>;
export type GetLinkInput = InputOf<typeof linkGet>;
export type ListLinksInput = InputOf<typeof linkList>;
export type UpdateLinkInput = InputOf<typeof linkUpdate>;
export type DeleteLinksInput = InputOf<typeof linkDelete>;
export type GetLinkStatsInput = InputOf<typeof linkStats>;
export type GetCampaignLinksInput = InputOf<typeof linkCampaign>;
