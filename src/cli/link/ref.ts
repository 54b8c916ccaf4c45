// A person copies short links, not ids: every command that takes links
// takes an id (all digits), a short link (a URL) or a code, and turns codes
// and short links into ids with Link/Get. A reference that finds nothing is
// named as it was typed.

import type { SmsLinkClient } from '../../client/client.js';
import { linkGet } from '../../catalog/link.js';
import { ApiError } from '../../client/errors.js';
import type { Link } from '../../catalog/types.js';
import { withScheme } from '../../catalog/rules.js';
import { EXIT, ExitError, UsageError } from '../../exit-codes.js';
import { mapLimit } from '../shared/ids.js';

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

/** A reference that found nothing: exit 6, named as typed, with where to look. */
export function notFound(ref: LinkRef): ExitError {
  const what = 'id' in ref ? 'no link has this id' : 'code' in ref ? 'no link has this code' : 'no link has this short link';
  return new ExitError(`link "${ref.typed}" not found: ${what} (or it belongs to another account). \`smslink link list --query ...\` searches codes and comments.`, EXIT.NOT_FOUND);
}

/** Reads the link a reference names; not found is an error naming the reference. */
export async function readLink(client: SmsLinkClient, ref: LinkRef): Promise<Link> {
  try {
    return await client.call(linkGet, getInput(ref));
  } catch (err) {
    if (err instanceof ApiError && err.isNotFound) throw notFound(ref);
    throw err;
  }
}

/**
 * The ids of the links referenced, in order. Ids are taken as given; codes
 * and short links are looked up (at most `concurrency` at a time), and every
 * one must be found before anything else is done.
 */
export async function resolveLinkIds(client: SmsLinkClient, typed: readonly string[], concurrency = 4): Promise<number[]> {
  const refs = typed.map((t) => parseLinkRef(t));
  return mapLimit(refs, concurrency, async (ref) => ('id' in ref ? ref.id : (await readLink(client, ref)).id));
}

/**
 * The links referenced, in order, with their codes: codes and short links
 * are looked up; ids too when `codes` is asked for (a chart names links by
 * code), else taken as given.
 */
export async function resolveLinks(client: SmsLinkClient, typed: readonly string[], opts: { codes: boolean; concurrency: number }): Promise<Array<{ id: number; code?: string }>> {
  const refs = typed.map((t) => parseLinkRef(t));
  return mapLimit(refs, opts.concurrency, async (ref) => {
    if ('id' in ref && !opts.codes) return { id: ref.id };
    const link = await readLink(client, ref);
    return { id: link.id, code: link.code };
  });
}
