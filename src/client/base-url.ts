// Whether a base URL and key can be used safely: a URL at all, http(s), and
// never the key over plain http:// to a host that is not this machine.

import { ConfigError, OPTION_NAMES, type SettingNames } from './errors.js';

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\]|::1)$/i;

export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK.test(hostname);
}

/** Checks the base URL and key; throws ConfigError when they cannot be used safely, naming the setting as `names` says. */
export function checkSettings(baseUrl: string, apiKey: string, allowInsecureHttp = false, names: SettingNames = OPTION_NAMES): URL {
  if (!baseUrl) throw new ConfigError('no base URL is set');
  if (!apiKey) throw new ConfigError('no API key is set');
  const url = URL.canParse(baseUrl) ? new URL(baseUrl) : undefined;
  if (!url) throw new ConfigError(`base URL "${baseUrl}" is not a valid URL`, 'usage');
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new ConfigError(`base URL must use https:// (got ${url.protocol}//)`, 'usage');
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname) && !allowInsecureHttp) {
    const why = `refusing to send the API key over plain http:// to ${url.host}; use https://, or pass ${names.allowInsecureHttp} if you really mean it`;
    throw new ConfigError(why, 'usage');
  }
  return url;
}
