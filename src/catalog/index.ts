// The operation catalog: one table describing the ten operations of the
// service's contract, and User/GetOwnBalance, which the live service and its
// public client libraries add. Flags, help, validation, request shape, the
// emulator's checks and the output columns are all read from here (design.md
// rule 1).

import { LINK_OPERATIONS } from './link.js';
import { MESSAGE_OPERATIONS } from './message.js';
import { USER_OPERATIONS } from './user.js';
import type { OperationSpec } from './types.js';

export * from './types.js';
export * from './link.js';
export * from './message.js';
export * from './user.js';
export * from './codes.js';
export { validateInput, paramByKey, idLimit, type Issue, type Validated } from './validate.js';
export { checkParam, parseDate, parseDateTime, formatDateTime, normalizePhone, isFullLink, toList, type CheckContext } from './rules.js';

export const OPERATIONS: readonly OperationSpec[] = [...LINK_OPERATIONS, ...MESSAGE_OPERATIONS, ...USER_OPERATIONS] as unknown as OperationSpec[];

const BY_PATH = new Map<string, OperationSpec>(OPERATIONS.map((op) => [`${op.module}/${op.operation}`.toLowerCase(), op]));

/** Finds an operation by either spelling of the service: `Link/GetStats`, `link/getStats`, `link/getstats`. */
export function findOperation(path: string): OperationSpec | undefined {
  return BY_PATH.get(path.replace(/^\/+|\/+$/g, '').toLowerCase());
}

