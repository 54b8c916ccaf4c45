// A person copies short links, not ids: every command that takes links
// takes an id (all digits), a short link (a URL) or a code, and turns codes
// and short links into ids with Link/Get. A reference that finds nothing is
// named as it was typed, in the one not-found sentence (words.ts).

import type { SmsLinkClient } from '../../client/client.js';
import { linkGet } from '../../catalog/link.js';
import { ApiError } from '../../client/errors.js';
import type { Link } from '../../catalog/types.js';
import { withScheme } from '../../catalog/rules.js';
import { EXIT, ExitError, UsageError } from '../../exit-codes.js';
import { mapLimit } from '../shared/ids.js';
import { notFound } from '../../output/words.js';

export type LinkRef = { typed: string } & ({ id: number } | { code: string } | { shortLink: string });

/** How every link command reads a reference; `forced` (link get's --id, --code, --short-link) says which kind it is. */
export function parseLinkRef(typed: string, forced?: 'id' | 'code' | 'shortLink'): LinkRef {
  const ref = typed.trim();
  const kind = forced ?? (/^\d+$/.test(ref) ? 'id' : /^[a-z][a-z0-9+.-]*:\/\//i.test(withScheme(ref)) ? 'shortLink' : 'code');
  if (kind === 'id') {
    const id = Number(ref);
    if (!/^\d+$/.test(ref) || !Number.isSafeInteger(id) || id < 1)
      throw new UsageError(`"${typed}" is not a link id: ids are whole numbers from 1 to ${Number.MAX_SAFE_INTEGER}`);
    return { typed, id };
  }
  if (kind === 'code') {
    if (!/^[\w-]+$/.test(ref)) throw new UsageError(`"${typed}" is not a link id, code or short link (a code is letters and digits, e.g. ddoj)`);
    return { typed, code: ref };
  }
  return { typed, shortLink: ref };
}

/** The Link/Get input that finds a reference. */
export function getInput(ref: LinkRef): { id: number } | { code: string } | { shortLink: string } {
  if ('id' in ref) return { id: ref.id };
  if ('code' in ref) return { code: ref.code };
  return { shortLink: ref.shortLink };
}

/**
 * References that found no link, named as typed in the words every command
 * uses (words.ts). Digits alone are always an id, so that a delete never hits
 * another link than the one meant; when a link has such digits as its code,
 * the sentence names its short link, which says which link is meant.
 */
export async function linksNotFound(client: SmsLinkClient, typed: readonly string[]): Promise<string> {
  const digits = [...new Set(typed.filter((t) => 'id' in parseLinkRef(t)).map((t) => t.trim()))].slice(0, 10);
  const asCodes = await mapLimit(digits, 4, (code) => client.call(linkGet, { code }).catch(() => undefined));
  const hints = asCodes.map((link, i) => (link?.code === digits[i] ? `\nDigits alone are an id: to name the link whose code is ${digits[i]}, give its short link, ${link.shortLink}.` : ''));
  return `${notFound('link', typed)}${hints.join('')}`;
}

/** References that found nothing: exit 6, in linksNotFound's words. */
export async function linkNotFound(client: SmsLinkClient, typed: readonly string[]): Promise<ExitError> {
  return new ExitError(await linksNotFound(client, typed), EXIT.NOT_FOUND);
}

/** Reads the link a reference names; not found is an error naming the reference. */
export async function readLink(client: SmsLinkClient, ref: LinkRef): Promise<Link> {
  try {
    return await client.call(linkGet, getInput(ref));
  } catch (err) {
    if (err instanceof ApiError && err.isNotFound) throw await linkNotFound(client, [ref.typed]);
    throw err;
  }
}

/** A link a reference found: its id, its code when it was read, and the reference as typed. */
export interface FoundLink {
  id: number;
  code?: string;
  typed: string;
}

/**
 * The links referenced, in order, and the references that found nothing (as
 * typed). Codes and short links are looked up with Link/Get (at most
 * `concurrency` at a time); ids too when `check` is asked for (whether each
 * exists, and its code), else taken as given. Every reference is read before
 * anything else is done, so a command can refuse what does not exist before
 * asking or changing anything.
 */
export async function resolveLinks(
  client: SmsLinkClient,
  typed: readonly string[],
  opts: { check: boolean; concurrency: number },
): Promise<{ links: FoundLink[]; missing: string[] }> {
  const refs = typed.map((t) => parseLinkRef(t));
  const found = await mapLimit(refs, opts.concurrency, async (ref): Promise<FoundLink | undefined> => {
    if ('id' in ref && !opts.check) return { id: ref.id, typed: ref.typed };
    try {
      const link = await client.call(linkGet, getInput(ref));
      return { id: 'id' in ref ? ref.id : link.id, code: link.code, typed: ref.typed };
    } catch (err) {
      if (err instanceof ApiError && err.isNotFound) return undefined;
      throw err;
    }
  });
  return { links: found.filter((l): l is FoundLink => l !== undefined), missing: refs.filter((_, i) => found[i] === undefined).map((r) => r.typed) };
}
