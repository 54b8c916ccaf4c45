// Whether a base URL and key can be used safely: a URL at all, http(s), and
// never the key over plain http:// to a host that is not this machine.

import { quoted } from '../output/text.js';
import { looksLikeKey, redact } from '../secrets.js';
import { ConfigError, OPTION_NAMES, type SettingNames } from './errors.js';

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\]|::1)$/i;

export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK.test(hostname);
}

/** Checks the base URL and key; throws ConfigError when they cannot be used safely, naming the setting as `names` says. */
export function checkSettings(baseUrl: string, apiKey: string, allowInsecureHttp = false, names: SettingNames = OPTION_NAMES): URL {
  if (!baseUrl) throw new ConfigError('no base URL is set');
  if (!apiKey) throw new ConfigError('no API key is set');
  // A key read from a file keeps its line break, and the service would only answer code 8.
  if (apiKey.trim() !== apiKey) throw new ConfigError('the API key has spaces or a line break at its start or end (as a key read from a file has); trim it');
  const url = URL.canParse(baseUrl) ? new URL(baseUrl) : undefined;
  if (!url) throw new ConfigError(notAUrl(baseUrl), 'usage');
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new ConfigError(`base URL must use https:// (got ${url.protocol}//)`, 'usage');
  // As the command line takes it (src/config/resolve.ts withoutServicePath); unsaid, every request would go to /service/service/ and get code 4.
  const prefix = /^(.*)\/service\/*$/i.exec(url.pathname)?.[1];
  if (prefix !== undefined) {
    throw new ConfigError(`base URL ${url.origin}${url.pathname} ends in /service, which the client adds to every request itself: give ${url.origin}${prefix}`, 'usage');
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname) && !allowInsecureHttp) {
    const why = `refusing to send the API key over plain http:// to ${url.host}; use https://, or pass ${names.allowInsecureHttp} if you really mean it`;
    throw new ConfigError(why, 'usage');
  }
  return url;
}

/**
 * Why a base URL is no URL, without showing a key: the value is quoted with
 * any key known to this process masked, and not at all when it looks like a
 * key itself (the key and base URL given the wrong way round).
 */
function notAUrl(baseUrl: string): string {
  const given = baseUrl.trim();
  if (looksLikeKey(given)) return 'base URL is not a valid URL: it looks like an API key (not shown); are the base URL and the key given the wrong way round?';
  const shown = redact(given);
  const scheme = /^[a-z0-9-]+(\.[a-z0-9-]+)+(:\d+)?(\/\S*)?$/i.test(given) ? `; write it with its scheme: https://${shown}` : '';
  return `base URL ${quoted(shown)} is not a valid URL${scheme}`;
}
