// The two answer formats of the live service, chosen by `output`: the
// {code, data, message} envelope as JSON (the default) or as XML under one
// root element, lists as repeated <item> elements, which the official PHP
// library reads with SimpleXML. docs/emulator-wire.md "Answers in XML".

import { RawJson, type Answer } from './handler.js';

export type Output = 'json' | 'xml';

export const CONTENT_TYPE: Readonly<Record<Output, string>> = {
  json: 'application/json; charset=utf-8',
  xml: 'application/xml; charset=utf-8',
};

/** The format an `output` parameter asks for: json when absent or empty, any letter case; null for any other value (code 6). */
export function outputOf(value: unknown): Output | null {
  if (value === undefined || value === '') return 'json';
  if (typeof value !== 'string') return null;
  const v = value.toLowerCase();
  return v === 'json' || v === 'xml' ? v : null;
}

/** The envelope as JSON; a cached answer's data (RawJson) is spliced in as it is. */
export function jsonEnvelope(a: Answer): string {
  if (a.data instanceof RawJson) return `{"code":${a.code},"data":${a.data.text},"message":${JSON.stringify(a.message)}}`;
  return JSON.stringify({ code: a.code, data: a.data, message: a.message });
}

/** The envelope in the format asked for. */
export function render(a: Answer, output: Output): string {
  return output === 'xml' ? xmlEnvelope(a) : jsonEnvelope(a);
}

// ---- XML -------------------------------------------------------------------

/**
 * Element names as PHP frameworks' XML answers have them (Yii's
 * XmlResponseFormatter): a key that is no XML name, a list's members and
 * numeric keys are <item>. Our answers' keys are all names.
 */
const NAME = /^(?!xml)[A-Za-z_][\w.-]*$/i;
/** Characters XML 1.0 cannot carry at all, not even as references: control characters, lone surrogates, U+FFFE/U+FFFF. */
const NOT_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

/** Text as element content: escaped, and a character XML cannot carry as U+FFFD (which a stored text could hold; the JSON answer keeps it). */
function text(s: string): string {
  return s.replace(/[&<>]/g, (c) => ESCAPES[c]).replace(NOT_XML, '\uFFFD');
}

/** A value as the content of its element: null and empty lists are empty; true and false are words, as PHP frameworks write them. */
function content(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (value instanceof RawJson) return content(value.toJSON());
  if (Array.isArray(value)) return value.map((v) => element('item', v)).join('');
  if (typeof value === 'object') return Object.entries(value).map(([k, v]) => element(NAME.test(k) ? k : 'item', v)).join('');
  return text(String(value));
}

function element(name: string, value: unknown): string {
  const inner = content(value);
  return inner === '' ? `<${name}/>` : `<${name}>${inner}</${name}>`;
}

/** `<?xml ...?><response><code>0</code><data>...</data><message/></response>`. */
export function xmlEnvelope(a: Answer): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<response>${element('code', a.code)}${element('data', a.data)}${element('message', a.message)}</response>\n`;
}
