// Types of the operation catalog, and the typed inputs and results of the ten
// operations that the client exposes.

export type ParamType = 'string' | 'integer' | 'url' | 'date' | 'datetime' | 'phone' | 'ids' | 'strings' | 'sort';

/** One request parameter of an operation and the contract's rules for it. */
export interface ParamSpec {
  /** Property name in the client's input object. */
  key: string;
  /** Bracket name on the wire (service-api.md), e.g. `data[fullLink]`. */
  wire: string;
  type: ParamType;
  required?: boolean;
  /** Service code when a required parameter is missing (default 11). */
  missingCode?: number;
  /** Breaking this rule is a constraint error on the service (code 12), not a validation error (code 1). */
  constraint?: boolean;
  oneOf?: readonly (string | number)[];
  min?: number;
  max?: number;
  minLength?: number;
  maxLength?: number;
  maxItems?: number;
  /** The service ignores items beyond maxItems instead of refusing them (the emulator cuts the list). */
  truncate?: boolean;
  /** For datetimes relative to now: allowed distance from now in ms. */
  window?: { minMs: number; maxMs: number };
  sortFields?: readonly string[];
  /** How a list goes on the wire: ids[0]=.. (indices), ids[]=.. (brackets) or one comma-separated string. */
  list?: 'indices' | 'brackets' | 'comma';
  /** The sentence of service-api.md this parameter encodes. */
  doc: string;
  cli?: CliParam;
}

/** How a parameter appears on the command line. */
export interface CliParam {
  /** Option flags and value name, e.g. `--status <status>`; absent for positional arguments. */
  flag?: string;
  /** Positional argument name, e.g. `<fullLink>`. */
  arg?: string;
  help: string;
  /** Words accepted in place of wire values, e.g. active -> 1. */
  aliases?: Record<string, string | number>;
  /** Date-only input is filled to the start or end of the day (a time without seconds to the start or end of its minute). */
  fillTime?: 'start' | 'end';
  /** How an unsigned relative time (7d) counts on a datetime flag: ago (the default) or ahead (`--at 2h`: in 2 hours). */
  relative?: 'ago' | 'ahead';
  /** A flag that takes no value and sends this value when given. */
  boolean?: string | number;
}

/** Shape of a result, for normalising what the service sends back. */
export type Shape =
  | 'int'
  | 'float'
  | 'string'
  | 'any'
  /** Known fields by name; `rest` types the fields not named (else they pass through untouched). */
  | { object: Record<string, Shape>; rest?: Shape }
  | { array: Shape };

export interface OutputSpec {
  /** Where the rows of a result are: the result itself (one row), an array, or `items`. */
  rows: 'self' | 'array' | 'items';
  /** Default table columns. */
  columns: readonly string[];
  /** The field -q prints, one value per line. */
  primary: string;
  /** Words shown in tables instead of raw values, e.g. status 1 -> active. */
  labels?: Record<string, Record<string, string>>;
}

export interface OperationSpec<Input = object, Result = unknown> {
  /** Catalog id, also the emulator handler name: `link.create`. */
  id: string;
  module: 'Link' | 'Message';
  operation: string;
  /** Client method name. */
  method: string;
  /** CLI noun and verb. */
  command: [noun: string, verb: string];
  summary: string;
  /** Safe to repeat: retried on transport faults. */
  idempotent: boolean;
  params: readonly ParamSpec[];
  /** Exactly one of these keys must be given (service code 12 otherwise). */
  exactlyOne?: readonly string[];
  /** Rules across parameters; returns [key, rule] pairs. */
  crossCheck?: (input: Record<string, unknown>) => Array<[string, string]>;
  result: Shape;
  output: OutputSpec;
  /** Phantom fields that carry the TypeScript types of input and result. */
  readonly _types?: { input: Input; result: Result };
}

// ---- typed inputs and results ------------------------------------------

export type LinkStatus = 0 | 1;
export type SortDirection = 'ASC' | 'DESC' | 'asc' | 'desc';

export interface Link {
  id: number;
  code: string;
  shortLink: string;
  fullLink: string;
  status: LinkStatus;
  moderatorStatus: 0 | 1;
  clickCnt: number;
  createTs: string;
  expirationDate: string | null;
  comment: string | null;
  moderatorComment: string | null;
  /** Fields the live service sends beyond the contract pass through. */
  [extra: string]: unknown;
}

export interface CreateLinkInput {
  fullLink: string;
  status?: LinkStatus;
  expirationDate?: string;
  comment?: string;
}
export interface CreateLinkResult {
  id: number;
  code: string;
  shortLink: string;
}

export type GetLinkInput = { id: number } | { code: string } | { shortLink: string };

export type LinkSortField = 'createTs' | 'expirationDate' | 'clickCnt' | 'code' | 'fullLink';
export interface ListLinksInput {
  status?: LinkStatus;
  moderatorStatus?: 0 | 1;
  createTsFrom?: string;
  createTsTo?: string;
  query?: string;
  pageSize?: 25 | 50 | 100;
  currentPage?: number;
  sort?: Partial<Record<LinkSortField, SortDirection>>;
}
export interface Page<T> {
  items: T[];
  totalItemCount: number;
}

export interface UpdateLinkInput {
  id: number;
  status?: LinkStatus;
  /** Omitted: the service makes the link valid indefinitely (service-api.md Link/Update). */
  expirationDate?: string;
  comment?: string;
}
export interface UpdateLinkResult {
  /** The short link, when the service sends it (documented); null when it answers `true` (live). */
  shortLink: string | null;
}

export interface DeleteLinksInput {
  ids: number[];
}
export interface DeleteLinksResult {
  processed: number[];
  notProcessed: number[];
}

export type StatsType = 'monthly' | 'daily' | 'hourly' | 'minute';
export interface GetLinkStatsInput {
  ids: number[];
  type: StatsType;
  dateFrom?: string;
  dateTo?: string;
}
/** One period: `param` is the label, clicksN/redirectsN per position N of the ids sent. */
export interface LinkStatsRow {
  param: string;
  [column: string]: string | number;
}
export interface LinkStatsResult {
  items: LinkStatsRow[];
  /** Live: {totalClicks0, totalRedirects0, ...}; documented: a string with the total clicks. */
  totals: Record<string, number> | number | string;
}

export interface GetCampaignLinksInput {
  campaignId: number;
}
export interface CampaignLink {
  id: number;
  code: string;
  fullLink: string;
  shortLink: string;
  clickCnt: number;
  redirectCnt: number;
  comment: string | null;
  [extra: string]: unknown;
}

export interface SendMessageInput {
  recipient: string;
  text: string;
  from?: string;
  name?: string;
  deferredToTs?: string;
  shortenLinks?: 0 | 1;
  validity?: number;
}
export interface SendMessageResult {
  campaignId: number;
  messageId: number;
  /** 1 awaiting moderation, 2 sent without moderation. */
  status: 1 | 2;
}

export type MessageStatus = 'NEW' | 'ENQUEUD' | 'ACCEPTD' | 'PDLIVRD' | 'DELIVRD' | 'UNDELIV' | 'REJECTD' | 'EXPIRED' | 'DELETED';
export interface GetMessageStatusInput {
  ids: number[];
}
export interface MessageStatusRecord {
  id: number;
  status: MessageStatus | string;
  segNum: number;
  startSendTs: string | null;
  statusUpdateTs: string | null;
  [extra: string]: unknown;
}

export type MessageSortField = 'campaignId' | 'from' | 'to' | 'text' | 'status' | 'startSendTs' | 'statusUpdateTs' | 'segNum';
export interface ListMessagesInput {
  withNumberInfo?: 0 | 1;
  campaignIds?: number[];
  from?: string;
  to?: string;
  text?: string;
  status?: MessageStatus | string;
  groups?: string[];
  campaignStatus?: string;
  campaignCreateTsFrom?: string;
  campaignCreateTsTo?: string;
  campaignSentTsFrom?: string;
  campaignSentTsTo?: string;
  startSendTsFrom?: string;
  startSendTsTo?: string;
  statusUpdateTsFrom?: string;
  statusUpdateTsTo?: string;
  pageSize?: 25 | 50 | 100;
  currentPage?: number;
  sort?: Partial<Record<MessageSortField, SortDirection>>;
}
export interface Message {
  id: number;
  campaignId: number;
  segNum: number;
  segUserBuy: number;
  from: string;
  to: string;
  text: string;
  status: MessageStatus | string;
  groups: string | null;
  uuid: string;
  countryA2?: string | null;
  operatorName?: string | null;
  startSendTs: string | null;
  statusUpdateTs: string | null;
  [extra: string]: unknown;
}
