// Runs test/helpers/simplexml.php: XML answers read by PHP's SimpleXML as the
// official PHP library reads them. Needs php-cli with SimpleXML (Debian:
// php-cli and php-xml; .ci/run installs them when missing).

import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export type SimpleXmlValue = string | SimpleXmlValue[] | { [name: string]: SimpleXmlValue };

export type SimpleXmlRead = { loaded: false } | { loaded: true; success: boolean; code: string; message: string; data: SimpleXmlValue };

const SCRIPT = fileURLToPath(new URL('simplexml.php', import.meta.url));

/** Each XML text as PHP's SimpleXML reads it; one php process for all of them. */
export function readWithSimpleXml(texts: readonly string[]): Promise<SimpleXmlRead[]> {
  return new Promise((resolve, reject) => {
    const child = execFile('php', [SCRIPT], { maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) {
        const missing = (err as NodeJS.ErrnoException).code === 'ENOENT' || /simplexml_load_string/.test(stderr);
        reject(new Error(missing ? `php with SimpleXML is needed for this test (Debian: apt-get install php-cli php-xml): ${stderr || err.message}` : `simplexml.php failed: ${stderr || err.message}`));
        return;
      }
      resolve(JSON.parse(stdout) as SimpleXmlRead[]);
    });
    child.stdin!.end(JSON.stringify(texts));
  });
}

/**
 * A JSON answer's data as an XML reader sees it once the service has
 * written it as XML: every scalar a text (null and empty lists empty,
 * true and false as words), lists as lists, objects as objects.
 */
export function asXmlText(value: unknown): SimpleXmlValue {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.length === 0 ? '' : value.map(asXmlText);
  if (typeof value === 'object') {
    const entries = Object.entries(value);
    return entries.length === 0 ? '' : Object.fromEntries(entries.map(([k, v]) => [k, asXmlText(v)]));
  }
  return String(value);
}
