// The form encoding of any nested object, for raw calls (`smslink api`),
// whose parameters the catalog does not describe: bracket keys as they are,
// values as encodeValue() writes them. qs loads only for such a call.

import qs from 'qs';
import { encodeValue } from './request.js';

/** `{data: {fullLink: 'x'}, ids: [1, 2]}` -> `data[fullLink]=x&ids[0]=1&ids[1]=2` (or `ids[]=` with 'brackets'). */
export function encodeForm(params: Record<string, unknown>, arrayFormat: 'indices' | 'brackets' = 'indices'): string {
  return qs.stringify(params, { encodeValuesOnly: true, arrayFormat, encoder: (value, encode, charset, type) => (type === 'value' && typeof value === 'string' ? encodeValue(value) : encode(value, undefined, charset)) });
}
