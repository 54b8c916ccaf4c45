// Library entry: the typed client, its errors and the types of every operation.
export { SmsLinkClient, checkSettings, isLoopbackHost, type SmsLinkClientOptions, type CallOptions, type RequestEvent, type OperationMethods } from './client/client.js';
export { SmsLinkError, ValidationError, ConfigError, ApiError, TransportError, type TransportKind } from './client/errors.js';
export type { Envelope } from './client/envelope.js';
export type { PreparedRequest } from './client/request.js';
export type { HttpClient, HttpRequest, HttpResponse, ProxyEnv, Send } from './client/send.js';
export type { RetryInfo } from './client/retry.js';
export type { DispatchTarget, DispatchRequest, DispatchHandler, DispatchControl } from './client/undici.js';
export { OPERATIONS, findOperation, RESULT_CODES, describeCode, MESSAGE_STATUSES, FINAL_STATUSES, CAMPAIGN_STATUSES } from './catalog/index.js';
export type * from './catalog/types.js';
export type { CreateLinkInput, GetLinkInput, ListLinksInput, UpdateLinkInput, DeleteLinksInput, GetLinkStatsInput, GetCampaignLinksInput, LinkSortField, StatsType } from './catalog/link.js';
export type { SendMessageInput, GetMessageStatusInput, ListMessagesInput, MessageSortField } from './catalog/message.js';
export type { Issue } from './catalog/validate.js';
