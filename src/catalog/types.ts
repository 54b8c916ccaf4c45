// Types of the operation catalog. The client's input types are derived from
// each operation's parameters (InputOf); its result types are written here,
// richer than the normaliser's shapes, and checked against them (define).

import type { MESSAGE_STATUSES } from './codes.js';

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
  /** Text of white space alone is refused too: a message nobody can read, charged all the same. The client's care; the live service takes it. */
  notBlank?: boolean;
  maxItems?: number;
  /** The service ignores items beyond maxItems instead of refusing them (the emulator cuts the list). */
  truncate?: boolean;
  /** For datetimes relative to now: allowed distance from now in ms. */
  window?: { minMs: number; maxMs: number };
  sortFields?: readonly string[];
  /** How a list goes on the wire: ids[0]=.. (indices), ids[]=.. (brackets) or one comma-separated string. */
  list?: 'indices' | 'brackets' | 'comma';
  /**
   * Where the live service accepts more than the contract (real-service-notes.md
   * "What the live service accepts"): these rules replace the contract's when
   * the emulator checks a request; the client keeps to the contract's.
   */
  live?: Pick<ParamSpec, 'sortFields' | 'notBlank'>;
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
  /** A flag that takes no value and sends this value when given. */
  boolean?: string | number;
  /** What to do instead when this one-value flag is given twice (the usage error says it). */
  once?: string;
  /**
   * The flag takes several values, comma-separated, though the wire takes
   * one: a list command sends one request per value and merges the items
   * in the list's order (src/cli/paging.ts).
   */
  several?: boolean;
  /** Words for several values at once, on a `several` flag: `--status failed` is UNDELIV, REJECTD, EXPIRED and DELETED. */
  groups?: Readonly<Record<string, readonly string[]>>;
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
  /** Columns added after those when an input is set (`withNumberInfo`: the country and operator it asks for). */
  columnsWith?: Readonly<Record<string, readonly string[]>>;
  /** The field -q prints, one value per line. */
  primary: string;
  /** What the values of fields whose name says too little are (`status`): a person's screens say them in words. */
  kinds?: Record<string, ValueKind>;
}

/**
 * What a value is, for a person: src/output/words.ts says each kind one way
 * on every screen (a link status 1 is `active`, a message status DELIVRD
 * `delivered`, 0.06 `0.0600 KZT`); JSON, CSV and -q keep the value as it came.
 */
export type ValueKind = 'linkStatus' | 'moderatorStatus' | 'messageStatus' | 'campaignStatus' | 'money' | 'time' | 'seconds' | 'fraction' | 'timeline';

export interface OperationSpec<Input = unknown, Result = unknown> {
  /** Catalog id, also the emulator handler name: `link.create`. */
  id: string;
  module: 'Link' | 'Message' | 'User';
  operation: string;
  /** Client method name. */
  method: string;
  /** CLI noun and verb; absent for an operation with no command of its own (`smslink api` and the client reach it). */
  command?: readonly [noun: string, verb: string];
  summary: string;
  /** Safe to repeat: retried on transport faults. */
  idempotent: boolean;
  params: readonly ParamSpec[];
  /** Exactly one of these keys must be given (service code 12 otherwise). */
  exactlyOne?: readonly string[];
  /** Rules across parameters; returns [key, rule] pairs. */
  crossCheck?: (input: Record<string, unknown>) => Array<[string, string]>;
  result: Shape;
  /** Codes besides 0 whose data is still the result when it has a field of the result's shape (Link/Delete: 98 partly done, 99 nothing done). */
  resultCodes?: readonly number[];
  /** The client's result from the normalised data, where the service sends more than one shape. */
  finish?: (data: never) => unknown;
  output: OutputSpec;
  /** Phantom fields that carry the TypeScript types of input and result. */
  readonly _types?: { input: Input; result: Result };
}

// ---- types derived from the catalog --------------------------------------

/** A parameter's type in the client's input, from its catalog entry. */
type ValueOf<P> = P extends { oneOf: infer V extends readonly unknown[] }
  ? V[number]
  : P extends { type: 'integer' }
    ? number
    : P extends { type: 'ids' }
      ? number[]
      : P extends { type: 'strings' }
        ? string[]
        : P extends { type: 'sort'; sortFields: infer F extends readonly string[] }
          ? Partial<Record<F[number], SortDirection>>
          : string;

type Simplify<T> = { [K in keyof T]: T[K] } & {};

type ParamsInput<Ps extends readonly ParamSpec[]> = Simplify<
  { [P in Ps[number] as P extends { required: true } ? P['key'] : never]: ValueOf<P> } & {
    [P in Ps[number] as P extends { required: true } ? never : P['key']]?: ValueOf<P>;
  }
>;

/** One object type per key of `exactlyOne`, with that key required. */
type ExactlyOne<I, Keys extends keyof I> = Keys extends unknown ? Simplify<Omit<I, Keys> & Required<Pick<I, Keys>>> : never;

/** The client's input of an operation: its parameters by key, required ones required. */
export type InputOf<Op> = Op extends { params: infer Ps extends readonly ParamSpec[] }
  ? Op extends { exactlyOne: readonly (infer K extends keyof ParamsInput<Ps>)[] }
    ? ExactlyOne<ParamsInput<Ps>, K>
    : ParamsInput<Ps>
  : never;

export type ResultOf<Op> = Op extends OperationSpec<unknown, infer R> ? R : never;

/** Field names of a type, without its index signature. */
type NamedKeys<T> = keyof { [K in keyof T as string extends K ? never : number extends K ? never : K]: 0 };

/** Whether every named field of a result type is in the result's shape, all the way down. */
type Fits<R, S> = S extends { array: infer I }
  ? R extends readonly (infer E)[]
    ? Fits<E, I>
    : false
  : S extends { object: infer O }
    ? [Exclude<NamedKeys<R>, keyof O>] extends [never]
      ? false extends { [K in NamedKeys<R> & keyof O]: Fits<NonNullable<R[K]>, O[K]> }[NamedKeys<R> & keyof O]
        ? false
        : true
      : false
    : true;

/**
 * Defines an operation whose client result is R: the input type comes from
 * the parameters, and R must not name a field the result's shape lacks.
 */
export function define<R>() {
  return <const S extends OperationSpec>(spec: S & (Fits<R, S['result']> extends true ? unknown : { result: 'does not have every field of the result type' })) =>
    spec as S & OperationSpec<InputOf<S>, R>;
}

// ---- results, as the client returns them ------------------------------------

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

export interface CreateLinkResult {
  id: number;
  code: string;
  shortLink: string;
}

export interface Page<T> {
  items: T[];
  totalItemCount: number;
}

export interface UpdateLinkResult {
  /** The short link, when the service sends it (documented); null when it answers `true` (live). */
  shortLink: string | null;
}

export interface DeleteLinksResult {
  processed: number[];
  notProcessed: number[];
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

/** User/GetOwnBalance: the account's money, in its currency (the live service sends the amount as "100.0000"). */
export interface BalanceResult {
  balance: number;
  /** ISO 4217 code, e.g. KZT. */
  currency: string;
}

export interface SendMessageResult {
  campaignId: number;
  messageId: number;
  /** 1 awaiting moderation, 2 sent without moderation. */
  status: 1 | 2;
}

export type MessageStatus = (typeof MESSAGE_STATUSES)[number];
export interface MessageStatusRecord {
  id: number;
  status: MessageStatus | string;
  segNum: number;
  startSendTs: string | null;
  statusUpdateTs: string | null;
  [extra: string]: unknown;
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
