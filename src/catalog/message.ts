// Module Message of service-api.md: single SMS messages.

import { CAMPAIGN_STATUSES, MESSAGE_STATUS_GROUPS, MESSAGE_STATUS_WORDS, MESSAGE_STATUSES } from './codes.js';
import { currentPageParam, datetimeRange, MESSAGE_SHAPE, pageShape, pageSizeParam, sortParam, TIMES } from './shared.js';
import { define, type InputOf, type Message, type MessageStatusRecord, type Page, type SendMessageResult } from './types.js';

export const MESSAGE_SORT_FIELDS = ['campaignId', 'from', 'to', 'text', 'status', 'startSendTs', 'statusUpdateTs', 'segNum'] as const;
export type MessageSortField = (typeof MESSAGE_SORT_FIELDS)[number];

const HOUR = 3_600_000;

/** The campaign statuses a send answers with (service-api.md, "Send result"), in words. */

export const messageSend = define<SendMessageResult>()({
  id: 'message.send',
  module: 'Message',
  operation: 'SendSmsMessage',
  method: 'sendMessage',
  command: ['message', 'send'],
  summary: 'Send one SMS message',
  idempotent: false,
  params: [
    {
      key: 'recipient',
      wire: 'recipient',
      type: 'phone',
      required: true,
      minLength: 7,
      maxLength: 15,
      doc: 'recipient: international format, digits only; a leading + is removed',
      cli: {
        flag: '--to <number>',
        help: 'recipient in international format, e.g. +77011234567',
        once: 'a message goes to one number; to send to several, put them in a CSV file (column recipient) and use --from-file',
      },
    },
    {
      key: 'text',
      wire: 'text',
      type: 'string',
      required: true,
      minLength: 1,
      notBlank: true,
      live: { notBlank: false },
      doc: 'text: message text, URL-encoded',
      cli: { flag: '--text <text>', help: 'message text; - reads it from stdin' },
    },
    {
      key: 'from',
      wire: 'from',
      type: 'string',
      minLength: 1,
      doc: 'from: sender ID; the account default when omitted',
      cli: { flag: '--from <sender>', help: 'registered sender ID (default: the account default)' },
    },
    {
      key: 'name',
      wire: 'params[name]',
      type: 'string',
      doc: 'params[name]: campaign name',
      cli: { flag: '--name <campaign>', help: 'campaign name' },
    },
    {
      key: 'deferredToTs',
      wire: 'params[deferredToTs]',
      type: 'datetime',
      window: { minMs: HOUR, maxMs: 14 * 24 * HOUR },
      doc: 'params[deferredToTs]: YYYY-MM-DD HH:MM:SS, no earlier than 1 hour and no later than 14 days from now',
      cli: { flag: '--at <time>', help: `send later, more than 1 hour and at most 14 days from now, e.g. +2h or "2026-12-01 09:00" (${TIMES})` },
    },
    {
      key: 'shortenLinks',
      wire: 'params[shortenLinks]',
      type: 'integer',
      oneOf: [0, 1],
      doc: 'params[shortenLinks]: 1 shortens every link in the text; default 0',
      cli: { flag: '--shorten-links', help: 'replace links in the text with short links', boolean: 1 },
    },
    {
      key: 'validity',
      wire: 'params[validity]',
      type: 'integer',
      min: 60,
      max: 1440,
      doc: 'params[validity]: delivery wait time in minutes, 60 to 1440',
      cli: { flag: '--validity <minutes>', help: 'how long to try delivering, 60 to 1440 minutes' },
    },
  ],
  result: { object: { campaignId: 'int', messageId: 'int', status: 'int' } },
  output: {
    rows: 'self',
    columns: ['messageId', 'campaignId', 'status'],
    primary: 'messageId',
    // A table shows the campaign's status under its own name (campaignStatus): `status sent` beside a rejected delivery misleads.
    kinds: { status: 'campaignStatus' },
  },
});

export const messageStatus = define<MessageStatusRecord[]>()({
  id: 'message.status',
  module: 'Message',
  operation: 'GetSMSStatus',
  method: 'getMessageStatus',
  command: ['message', 'status'],
  summary: 'Delivery status of messages',
  idempotent: true,
  params: [
    {
      key: 'ids',
      wire: 'ids',
      type: 'ids',
      required: true,
      missingCode: 2,
      constraint: true,
      maxItems: 100,
      list: 'comma',
      doc: 'ids: array or comma-separated string; at most 100',
      cli: { arg: '<id...>', help: 'message ids (space- or comma-separated; - reads stdin)' },
    },
  ],
  result: {
    array: { object: { id: 'int', status: 'string', segNum: 'int', startSendTs: 'string', statusUpdateTs: 'string' } },
  },
  finish: (r: MessageStatusRecord[] | null) => (Array.isArray(r) ? r : []),
  output: { rows: 'array', columns: ['id', 'status', 'segNum', 'startSendTs', 'statusUpdateTs'], primary: 'status', kinds: { status: 'messageStatus' } },
});

export const messageList = define<Page<Message>>()({
  id: 'message.list',
  module: 'Message',
  operation: 'List',
  method: 'listMessages',
  command: ['message', 'list'],
  summary: 'List and search sent messages',
  idempotent: true,
  params: [
    {
      key: 'withNumberInfo',
      wire: 'withNumberInfo',
      type: 'integer',
      oneOf: [0, 1],
      doc: 'withNumberInfo: 1 adds country and operator',
      cli: { flag: '--with-number-info', help: 'add recipient country and operator', boolean: 1 },
    },
    {
      // Not in the contract: the live service's documentation says the search goes "by ID and campaign fields", and a public client finds one message so (real-service-notes.md).
      key: 'id',
      wire: 'criteria[id]',
      type: 'integer',
      min: 1,
      doc: 'criteria[id]: one message, by its id (the live service)',
      cli: { flag: '--id <id>', help: 'one message, by its id' },
    },
    {
      key: 'campaignId',
      wire: 'criteria[campaignId]',
      type: 'integer',
      min: 1,
      doc: "criteria[campaignId]: one campaign's messages (the live service)",
      cli: { flag: '--campaign <id>', help: "one campaign's messages, by the campaign id" },
    },
    {
      key: 'campaignIds',
      wire: 'criteria[campaignIds]',
      type: 'ids',
      maxItems: 100,
      truncate: true,
      list: 'comma',
      doc: 'criteria[campaignIds]: array or comma-separated; only the first 100 are used',
      cli: { flag: '--campaign-ids <ids>', help: 'campaign ids, comma-separated (at most 100)' },
    },
    {
      key: 'from',
      wire: 'criteria[from]',
      type: 'string',
      doc: 'criteria[from]: sender ID',
      cli: { flag: '--from <sender>', help: 'sender ID' },
    },
    {
      key: 'to',
      wire: 'criteria[to]',
      type: 'phone',
      minLength: 1,
      maxLength: 15,
      doc: 'criteria[to]: recipient number, whole or partial; only one number',
      cli: { flag: '--to <number>', help: 'recipient number, whole or partial' },
    },
    {
      key: 'text',
      wire: 'criteria[text]',
      type: 'string',
      doc: 'criteria[text]: complete match of message text',
      cli: { flag: '--text <text>', help: 'exact message text' },
    },
    {
      // The contract types this as an integer; the live service speaks the status names.
      key: 'status',
      wire: 'criteria[status]',
      type: 'string',
      oneOf: MESSAGE_STATUSES,
      doc: 'criteria[status]: message status',
      cli: {
        flag: '--status <status>',
        help: `message status, in words or as the service's code; several comma-separated (undelivered,rejected): ${Object.entries(MESSAGE_STATUS_WORDS)
          .filter(([word]) => word !== 'enqueued')
          .map(([word, code]) => `${word} (${code})`)
          .join(', ')}; or ${Object.entries(MESSAGE_STATUS_GROUPS)
          .map(([word, codes]) => `${word} (${codes.join(', ')})`)
          .join(', ')}, as report delivery counts them`,
        aliases: MESSAGE_STATUS_WORDS,
        groups: MESSAGE_STATUS_GROUPS,
        // The contract's criteria[status] is one status: several are one request each.
        several: true,
        once: 'for several statuses, give them comma-separated: --status undelivered,rejected',
      },
    },
    {
      key: 'groups',
      wire: 'criteria[groups]',
      type: 'strings',
      list: 'comma',
      doc: 'criteria[groups]: contact group ids, array or comma-separated',
      cli: { flag: '--groups <ids>', help: 'contact group ids, comma-separated' },
    },
    {
      key: 'campaignStatus',
      wire: 'criteria[campaignStatus]',
      type: 'string',
      oneOf: CAMPAIGN_STATUSES,
      doc: 'criteria[campaignStatus]: campaign status of the message',
      cli: { flag: '--campaign-status <status>', help: `campaign status: ${CAMPAIGN_STATUSES.join(', ')}` },
    },
    ...datetimeRange('campaignCreateTs', 'campaign-created', 'campaign created'),
    ...datetimeRange('campaignSentTs', 'campaign-sent', 'campaign sent'),
    ...datetimeRange('startSendTs', 'sent', 'message sent'),
    ...datetimeRange('statusUpdateTs', 'updated', 'status changed'),
    pageSizeParam(),
    currentPageParam(),
    // The live service also sorts by id (real-service-notes.md); the contract names eight fields.
    { ...sortParam(MESSAGE_SORT_FIELDS), live: { sortFields: [...MESSAGE_SORT_FIELDS, 'id'] } },
  ],
  result: pageShape(MESSAGE_SHAPE),
  output: {
    rows: 'items',
    // When the status last changed goes with the status, in csv and tsv as in json (a table leaves it out first at 80 columns).
    columns: ['id', 'campaignId', 'to', 'from', 'status', 'segNum', 'startSendTs', 'statusUpdateTs', 'text'],
    columnsWith: { withNumberInfo: ['countryA2', 'operatorName'] },
    primary: 'id',
    kinds: { status: 'messageStatus' },
  },
});

export const MESSAGE_OPERATIONS = [messageSend, messageStatus, messageList] as const;

export type SendMessageInput = InputOf<typeof messageSend>;
export type GetMessageStatusInput = InputOf<typeof messageStatus>;
export type ListMessagesInput = InputOf<typeof messageList>;
