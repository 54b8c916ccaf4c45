// What a base URL is (http(s), without the /service the client adds) and
// whether it and the key can be used safely: never the key over plain
// http:// to a host that is not this machine.

import { quoted } from '../output/text.js';
import { looksLikeKey, maskKey, redact } from '../secrets.js';
import { ConfigError, OPTION_NAMES, type SettingNames } from './errors.js';

/** An absolute http:// or https:// URL (base URLs, proxies). */
export function isHttpUrl(value: string): boolean {
  try {
    const { protocol } = new URL(value);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

/**
 * The base URL a URL copied from the service's docs means: every request
 * goes to `{base_url}/service/<Module>/<Operation>` (service-api.md), and
 * smslink adds `/service` itself, so `https://api.example.com/service/` is
 * `https://api.example.com` (a path before it is kept). Undefined when the
 * URL does not end in /service.
 */
export function withoutServicePath(value: string): string | undefined {
  if (!isHttpUrl(value)) return undefined;
  const url = new URL(value);
  const path = url.pathname.replace(/\/+$/, '');
  if (!/\/service$/i.test(path)) return undefined;
  const prefix = path.slice(0, -'/service'.length);
  url.pathname = prefix || '/';
  return prefix || url.search || url.hash ? url.href : url.href.replace(/\/$/, '');
}

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
  // The command line takes such a URL without its /service (withoutServicePath); unsaid, every request would go to /service/service/ and get code 4.
  const host = withoutServicePath(baseUrl);
  if (host !== undefined) throw new ConfigError(`base URL ${url.origin}${url.pathname} ends in /service, which the client adds to every request itself: give ${host}`, 'usage');
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname) && !allowInsecureHttp) {
    const why = `refusing to send the API key over plain http:// to ${url.host}; use https://, or pass ${names.allowInsecureHttp} if you really mean it`;
    throw new ConfigError(why, 'usage');
  }
  return url;
}

/**
 * Why a base URL is no URL, without showing a key: the value is quoted with
 * any key known to this process masked, and masked as a key is shown
 * (maskKey) when it looks like one (the key and base URL given the wrong way
 * round), as the command line shows it.
 */
function notAUrl(baseUrl: string): string {
  const given = baseUrl.trim();
  if (looksLikeKey(given)) return `base URL ${quoted(maskKey(given))} is not a valid URL: it looks like an API key; are the base URL and the key given the wrong way round?`;
  const shown = redact(given);
  const scheme = /^[a-z0-9-]+(\.[a-z0-9-]+)+(:\d+)?(\/\S*)?$/i.test(given) ? `; write it with its scheme: https://${shown}` : '';
  return `base URL ${quoted(shown)} is not a valid URL${scheme}`;
}
