// The package version, read once from package.json (one level above both src/ and dist/).
import { readFileSync } from 'node:fs';

/** Set by the bundled CLI's build (scripts/bundle.mjs): its files in dist/bundle/ are not one level below package.json. */
declare const SMSLINK_BUNDLED_VERSION: string | undefined;

let cached: string | undefined;

export function version(): string {
  if (typeof SMSLINK_BUNDLED_VERSION === 'string') return SMSLINK_BUNDLED_VERSION;
  cached ??= (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  return cached;
}

export function userAgent(): string {
  return `smslink/${version()} node/${process.versions.node}`;
}
