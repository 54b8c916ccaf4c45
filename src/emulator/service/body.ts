// A POST body as the form it carries, by its Content-Type: a form as it is, a
// JSON object flattened to bracket names (`{"data": {"fullLink": ...}}` is
// `data[fullLink]=...`), multipart/form-data read by @fastify/busboy. Bytes
// that are not what the Content-Type says are refused, saying what was
// expected; the form's limits (wire.ts) hold for every kind.

import { FormLimitError, MAX_DEPTH, MAX_PARAMS } from './wire.js';

/** Why a body cannot be read as its Content-Type says: answered with code 1 and this text. */
export class BodyError extends Error {}

export type BodyKind = 'form' | 'json' | 'multipart' | 'other';

const FORM_TYPE = 'application/x-www-form-urlencoded';
const EXPECTED = `send the parameters as a form (${FORM_TYPE}), multipart/form-data or a JSON object (application/json)`;

/** The media type of a Content-Type header, lower case, without its parameters. */
export function mediaType(contentType: string | undefined): string {
  if (contentType === undefined) return '';
  const semi = contentType.indexOf(';');
  return (semi < 0 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
}

/** How a body of this Content-Type is read. No Content-Type at all is read as a form, as before JSON bodies were. */
export function bodyKind(contentType: string | undefined): BodyKind {
  const type = mediaType(contentType);
  if (type === '' || type === FORM_TYPE) return 'form';
  if (type === 'application/json' || type.endsWith('+json')) return 'json';
  if (type === 'multipart/form-data') return 'multipart';
  return 'other';
}

/** What a body that is not a form looks like, to say so; null when it may be one. `at`: its first character that is not white space. */
function lookOf(text: string, at: number): string | null {
  const c = text[at];
  if ((c === '{' || c === '[') && isJson(text)) return 'JSON';
  if (c === '-' && /^--[^\r\n]*\r?\ncontent-disposition:/i.test(text.slice(at, at + 1024))) return 'multipart/form-data';
  if (c === '<') return 'XML or HTML';
  return null;
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * The form a body carries (URL-encoded), for a body read as text: a form
 * as it is, JSON flattened. Throws BodyError when bytes and Content-Type
 * disagree, FormLimitError past a limit. Multipart goes to multipartForm.
 */
export function formOf(contentType: string | undefined, text: string): string {
  const at = text.search(/\S/);
  if (at < 0) return '';
  const kind = bodyKind(contentType);
  if (kind === 'form') {
    const look = lookOf(text, at);
    if (look === null) return text;
    const said = mediaType(contentType) === '' ? 'there is no Content-Type (a form is assumed)' : `Content-Type says ${FORM_TYPE}`;
    throw new BodyError(`the body is ${look}, but ${said}: ${look === 'JSON' ? `send it with Content-Type: application/json, or send a form (${FORM_TYPE})` : EXPECTED}`);
  }
  if (kind === 'json') return jsonForm(text);
  if (kind === 'multipart') throw new Error('a multipart body is read by multipartForm');
  throw new BodyError(`Content-Type ${mediaType(contentType).slice(0, 100)} is not read: ${EXPECTED}`);
}

/** A JSON body's parameters as a form: `{"ids": [1, 2]}` is `ids[0]=1&ids[1]=2`. */
function jsonForm(text: string): string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new BodyError(`the body is not JSON, though Content-Type says application/json (${(err as Error).message}): send a JSON object of parameters, e.g. {"recipient": "77011234567", "text": "Hi"}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    const what = Array.isArray(value) ? 'an array' : value === null ? 'null' : `a ${typeof value}`;
    throw new BodyError(`a JSON body must be an object of parameters, e.g. {"recipient": "77011234567", "text": "Hi"}; this one is ${what}`);
  }
  const pairs: Array<[string, string]> = [];
  flatten(value as Record<string, unknown>, '', 0, pairs);
  return new URLSearchParams(pairs).toString();
}

/**
 * Leaves of a JSON value with their bracket names, as PHP reads a form:
 * true is "1", false "" (an optional parameter left out), null no parameter
 * at all. Stops past the form's limits, so a deep or wide document is
 * refused before it is walked.
 */
function flatten(node: Record<string, unknown> | unknown[], prefix: string, depth: number, out: Array<[string, string]>): void {
  for (const [key, value] of Object.entries(node)) {
    const name = prefix === '' ? key : `${prefix}[${key}]`;
    if (value === null) continue;
    if (typeof value === 'object') {
      if (depth >= MAX_DEPTH) throw new FormLimitError(`${name.slice(0, 60)}: parameter names nest at most ${MAX_DEPTH} brackets deep`);
      flatten(value as Record<string, unknown>, name, depth + 1, out);
      continue;
    }
    if (out.length === MAX_PARAMS) throw new FormLimitError(`a request carries at most ${MAX_PARAMS} parameters`);
    out.push([name, value === true ? '1' : value === false ? '' : String(value)]);
  }
}

interface Busboy {
  on(event: 'field', listener: (name: string, value: string) => void): this;
  on(event: 'fieldsLimit' | 'finish', listener: () => void): this;
  on(event: 'error', listener: (err: Error) => void): this;
  end(chunk: Buffer): void;
}
type BusboyFactory = (config: { headers: { 'content-type': string }; limits: Record<string, number> }) => Busboy;
let busboy: BusboyFactory | undefined;

/**
 * A multipart/form-data body's fields as a form, read by @fastify/busboy
 * (loaded on the first such body). Files are read past and left out: no
 * operation here takes one. Throws BodyError for a body that is not the
 * multipart its header says, FormLimitError past the parameter limit.
 */
export async function multipartForm(contentType: string, bytes: Buffer): Promise<string> {
  if (bytes.length === 0) return '';
  busboy ??= ((await import('@fastify/busboy')) as unknown as { default: BusboyFactory }).default;
  const pairs: Array<[string, string]> = [];
  await new Promise<void>((resolve, reject) => {
    let parser: Busboy;
    try {
      parser = busboy!({ headers: { 'content-type': contentType }, limits: { fields: MAX_PARAMS, fieldNameSize: 1024, fieldSize: bytes.length } });
    } catch (err) {
      reject(new BodyError(`Content-Type ${contentType.slice(0, 100)} cannot be read (${(err as Error).message}): multipart/form-data needs its boundary, as in multipart/form-data; boundary=...`));
      return;
    }
    parser.on('field', (name, value) => pairs.push([name, value]));
    parser.on('fieldsLimit', () => reject(new FormLimitError(`a request carries at most ${MAX_PARAMS} parameters`)));
    parser.on('error', (err) =>
      reject(new BodyError(`the body is not the multipart/form-data its Content-Type says (${err.message}): each part starts with --<boundary> and the body ends with --<boundary>--`)),
    );
    parser.on('finish', () => resolve());
    parser.end(bytes);
  });
  return new URLSearchParams(pairs).toString();
}
