// The inbox: one conversation per recipient number, shown as a phone shows
// it, oldest message first. Each message has its sender ID, text (short
// links in it open through the emulator, so a visit counts as a click),
// segments and encoding, cost, and its status with the times it changed.

import { MESSAGE_STATUS_GROUPS, MESSAGE_STATUSES, type MessageStatusGroup } from '../../catalog/codes.js';
import { AFTER_LINK, LINKS_IN_TEXT, withScheme } from '../../catalog/rules.js';
import { CODE_PATH } from '../service/redirect.js';
import { html, count, type Html } from './html.js';
import { conversations, knownCodes, messages, type MessageView } from './inspect.js';
import { choice, field, pageHref, statusBadge, time, timeOfDay, type InspectorPage, type PageContext } from './page.js';
import { money, shownOf, statusGroupWord, statusWord } from '../../output/words.js';

/** The newest messages a conversation shows (a page of them). */
export const THREAD_LIMIT = 1000;
const CONVERSATION_LIMIT = 200;


function codeOf(url: string): string | null {
  try {
    return CODE_PATH.exec(new URL(withScheme(url)).pathname)?.[1] ?? null;
  } catch {
    return null;
  }
}

/** The URLs of a text, without trailing punctuation. */
function urlsIn(text: string): Array<{ start: number; url: string }> {
  const out: Array<{ start: number; url: string }> = [];
  for (const m of text.matchAll(LINKS_IN_TEXT)) out.push({ start: m.index, url: m[0].replace(AFTER_LINK, '') });
  return out;
}

/** The text, escaped, with each short link of this emulator made a link that opens it here. */
export function linkify(text: string, known: ReadonlySet<string>): Html {
  const parts: Array<Html | string> = [];
  let at = 0;
  for (const { start, url } of urlsIn(text)) {
    const code = codeOf(url);
    if (code === null || !known.has(code)) continue;
    parts.push(text.slice(at, start), html`<a class="short" href="/${code}" target="_blank" rel="noopener noreferrer">${url}</a>`);
    at = start + url.length;
  }
  parts.push(text.slice(at));
  return html`${parts}`;
}

/** The time of a status: the time of day when its date is the message's (`day`), else the date too. */
function clock(ctx: PageContext, ms: number, day: string): Html {
  const full = time(ctx, ms);
  return html`<time datetime="${full}">${full.startsWith(day) ? timeOfDay(ctx, ms) : full}</time>`;
}

function bubble(ctx: PageContext, m: MessageView, known: ReadonlySet<string>, showTo: boolean): Html {
  const day = time(ctx, m.createdAt).slice(0, 10);
  return html`<li class="msg" id="m${m.id}">
    <p class="who"><span class="from">From <strong>${m.from}</strong></span>${showTo ? html` <span class="to">to <a href="${pageHref(ctx, '/', { to: m.to })}">+${m.to}</a></span>` : ''}<span class="when">${time(ctx, m.createdAt)}</span></p>
    <p class="text">${linkify(m.text, known)}</p>
    <p class="facts">${count(m.segments, 'segment')} · ${m.encoding} · cost ${money(m.price, ctx.settings.currency)} · campaign ${m.campaignId}${m.campaignName ? html` “${m.campaignName}”` : ''} · id ${m.id}</p>
    <div class="state">${statusBadge(m.status, 'record')}
      <ol class="timeline" aria-label="Status history">${m.timeline.map(
        (step) => html`<li${step.pending ? html` class="pending"` : ''}><span class="st">${statusWord(step.status)}</span> ${clock(ctx, step.at, day)}${step.pending ? ' (next)' : ''}</li>`,
      )}</ol>
    </div>
  </li>`;
}

export function messagesPage(ctx: PageContext): InspectorPage {
  const q = ctx.query;
  const accountId = ctx.bench.accounts[ctx.account];
  // A status, or a group of them as message list --status and report delivery say it (failed, pending).
  const chosen = q.get('status') ?? '';
  const status = Object.hasOwn(MESSAGE_STATUS_GROUPS, chosen) ? MESSAGE_STATUS_GROUPS[chosen as MessageStatusGroup] : MESSAGE_STATUSES.find((s) => s === chosen);
  const campaign = Number(q.get('campaign'));
  const filter = {
    accountId,
    to: (q.get('number') ?? '').replace(/[^\d]/g, '') || undefined,
    status,
    campaignId: Number.isInteger(campaign) && campaign > 0 ? campaign : undefined,
  };
  const selected = (q.get('to') ?? '').replace(/[^\d]/g, '') || undefined;
  const list = messages(ctx.settings, { ...filter, recipient: selected, limit: THREAD_LIMIT });
  const convs = conversations(ctx.settings, filter, CONVERSATION_LIMIT);
  const codes = [...new Set(list.items.flatMap((m) => urlsIn(m.text).map((u) => codeOf(u.url)).filter((c): c is string => c !== null)))];
  const known = knownCodes(ctx.settings, codes);
  const keep = { number: q.get('number'), status: q.get('status'), campaign: q.get('campaign') };
  // A chosen conversation on a narrow screen hides the filters too: they are back with the list.
  const head = html`<form class="filters${selected ? ' chosen' : ''}" method="get" action="/" role="search" aria-label="Filter messages">
      ${ctx.account > 0 ? html`<input type="hidden" name="account" value="${ctx.account + 1}">` : ''}
      ${field('number', 'Number', q.get('number'), html`inputmode="tel" autocomplete="off" placeholder="part of a number"`)}
      ${choice('status', 'Status', q.get('status'), [
        ['', 'any'],
        ...MESSAGE_STATUSES.map((s): [string, string] => [s, statusWord(s)]),
        ...Object.keys(MESSAGE_STATUS_GROUPS).map((g): [string, string] => [g, statusGroupWord(g as MessageStatusGroup)]),
      ])}
      ${field('campaign', 'Campaign id', q.get('campaign'), html`inputmode="numeric" autocomplete="off"`)}
      <p class="actions"><button type="submit">Filter</button> <a href="${pageHref(ctx, '/')}">Clear</a></p>
    </form>`;
  const items = [...list.items].reverse();
  const more = list.total - list.items.length;
  // On a narrow screen a chosen conversation is what the page shows: the list goes behind a link back to it.
  const live = html`<div class="inbox${selected ? ' chosen' : ''}">
    <section class="conversations" aria-labelledby="conv-title">
      <h2 id="conv-title">Conversations <span class="count">${shownOf(convs.items.length, convs.total, 'number')}</span></h2>
      ${
        convs.items.length === 0
          ? html`<p class="empty">No messages yet.</p>`
          : html`<ul>
        <li><a href="${pageHref(ctx, '/', keep)}"${selected ? '' : html` aria-current="true"`}>All numbers</a></li>
        ${convs.items.map(
          (c) => html`<li><a href="${pageHref(ctx, '/', { ...keep, to: c.to })}"${c.to === selected ? html` aria-current="true"` : ''}>
            <span class="num">+${c.to}</span> <span class="n">${count(c.count, 'message')}</span>
            <span class="last">${c.lastText}</span> ${statusBadge(c.lastStatus, 'table')}</a></li>`,
        )}</ul>`
      }
    </section>
    <section class="thread" aria-labelledby="thread-title">
      ${selected ? html`<p class="back"><a href="${pageHref(ctx, '/', keep)}">← All conversations</a></p>` : ''}
      <h2 id="thread-title">${selected ? `To +${selected}` : 'All numbers'} <span class="count">${shownOf(list.items.length, list.total, 'message')}</span></h2>
      ${more > 0 ? html`<p class="note">The newest are shown; ${count(more, 'older message')} not.</p>` : ''}
      ${
        items.length === 0
          ? html`<p class="empty">Nothing here. Messages your app sends through this emulator appear as they arrive.</p>`
          : html`<ol class="bubbles">${items.map((m) => bubble(ctx, m, known, !selected))}</ol>`
      }
    </section>
  </div>`;
  return { title: 'Messages', nav: 'messages', topics: ['messages'], head, live };
}
