// The package version, read once from package.json (one level above both src/ and dist/).
import { readFileSync } from 'node:fs';

let cached: string | undefined;

export function version(): string {
  cached ??= (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  return cached;
}

export function userAgent(): string {
  return `smslink/${version()} node/${process.versions.node}`;
}
