// Links: every short link of the account with its status, moderation,
// expiry, clicks and redirects; and one link's clicks and redirects per day
// or hour, drawn from the answer Link/GetStats gives for it (the same
// handler), so the chart and the API never disagree.

import { html, type Html } from './html.js';
import { count, shownOf } from '../../output/words.js';
import { link, links, type LinkView } from './inspect.js';
import { LINK_HANDLERS, shortLinkOf } from '../service/link.js';
import { badge, BASE, choice, field, pageHref, time, type InspectorPage, type PageContext } from './page.js';

const LIST_LIMIT = 500;
export const CHART_TYPES = ['daily', 'hourly'] as const;

function statusCells(l: LinkView): Html {
  return html`<td data-label="Status">${l.status === 1 ? badge('active', 'ok') : badge('inactive', 'wait')}</td>
    <td data-label="Moderation">${l.moderatorStatus === 1 ? badge('approved', 'ok') : badge('blocked', 'bad')}${l.moderatorComment ? html` <span class="sub">${l.moderatorComment}</span>` : ''}</td>
    <td data-label="Expires">${l.expirationDate ?? 'never'}${l.expired ? html` ${badge('expired', 'bad')}` : ''}</td>`;
}

export function linksPage(ctx: PageContext): InspectorPage {
  const q = ctx.query;
  const accountId = ctx.bench.accounts[ctx.account];
  const statusText = q.get('status');
  const campaign = Number(q.get('campaign'));
  const list = links(ctx.settings, {
    accountId,
    query: q.get('query') || undefined,
    status: statusText === '1' ? 1 : statusText === '0' ? 0 : undefined,
    campaignId: Number.isInteger(campaign) && campaign > 0 ? campaign : undefined,
    limit: LIST_LIMIT,
  });
  const head = html`<form class="filters" method="get" action="${BASE}/links" role="search" aria-label="Filter links">
      ${ctx.account > 0 ? html`<input type="hidden" name="account" value="${ctx.account + 1}">` : ''}
      ${field('query', 'Code, link or comment', q.get('query'), html`autocomplete="off"`)}
      ${choice('status', 'Status', statusText, [['', 'any'], ['1', 'active'], ['0', 'inactive']])}
      ${field('campaign', 'Campaign id', q.get('campaign'), html`inputmode="numeric" autocomplete="off"`)}
      <p class="actions"><button type="submit">Filter</button> <a href="${pageHref(ctx, `${BASE}/links`)}">Clear</a></p>
    </form>`;
  const live =
    list.items.length === 0
      ? html`<p class="empty">No links${q.get('query') || statusText || q.get('campaign') ? ' match' : ' yet'}.</p>`
      : html`<p class="count">${shownOf(list.items.length, list.total, 'link')}${list.total > list.items.length ? ', the newest' : ''}</p>
      <table class="links">
        <caption class="sr">Short links, newest first</caption>
        <thead><tr><th scope="col">Short link</th><th scope="col">Full link</th><th scope="col">Status</th><th scope="col">Moderation</th><th scope="col">Expires</th>
          <th scope="col" class="num">Clicks</th><th scope="col" class="num">Redirects</th><th scope="col">Comment</th><th scope="col">Campaign</th><th scope="col">Created</th></tr></thead>
        <tbody>${list.items.map(
          (l) => html`<tr id="link-${l.id}">
            <th scope="row" data-label="Short link"><a href="${pageHref(ctx, `${BASE}/links/${l.id}`)}">${l.code}</a></th>
            <td data-label="Full link" class="url">${l.fullLink}</td>
            ${statusCells(l)}
            <td data-label="Clicks" class="num clicks">${l.clicks}</td>
            <td data-label="Redirects" class="num redirects">${l.redirects}</td>
            <td data-label="Comment" class="comment">${l.comment ?? ''}</td>
            <td data-label="Campaign">${l.campaignId === null ? '' : html`<a href="${pageHref(ctx, `${BASE}/campaigns`)}#c${l.campaignId}">${l.campaignId}${l.campaignName ? ` “${l.campaignName}”` : ''}</a>`}</td>
            <td data-label="Created">${time(ctx, l.createTs)}</td>
          </tr>`,
        )}</tbody>
      </table>`;
  return { title: 'Links', nav: 'links', topics: ['links'], head, live };
}

interface Period {
  label: string;
  clicks: number;
  redirects: number;
}

/** Bars of clicks and redirects per period, as an SVG with a text summary; the table below holds the numbers. */
function chart(periods: Period[], type: string): Html {
  const W = 960;
  const H = 200;
  const max = Math.max(1, ...periods.map((p) => Math.max(p.clicks, p.redirects)));
  const slot = W / Math.max(1, periods.length);
  const bar = Math.max(1, slot * 0.4);
  const y = (n: number) => H - (n / max) * (H - 10);
  const clicks = periods.reduce((a, p) => a + p.clicks, 0);
  const redirects = periods.reduce((a, p) => a + p.redirects, 0);
  const unit = type === 'hourly' ? 'hour' : 'day';
  const summary = `Clicks and redirects per ${unit}, ${periods[0]?.label ?? ''} to ${periods.at(-1)?.label ?? ''}: ${count(clicks, 'click')}, ${count(redirects, 'redirect')}; at most ${max} in one ${unit}.`;
  return html`<figure class="chart">
    <svg viewBox="0 0 ${W} ${H + 1}" preserveAspectRatio="none" role="img" aria-labelledby="chart-title">
      <title id="chart-title">${summary}</title>
      <line x1="0" y1="${H}" x2="${W}" y2="${H}" class="axis"/>
      ${periods.map((p, i) =>
        p.clicks || p.redirects
          ? html`<rect class="c" x="${(i * slot).toFixed(2)}" y="${y(p.clicks).toFixed(2)}" width="${bar.toFixed(2)}" height="${(H - y(p.clicks)).toFixed(2)}"/><rect class="r" x="${(i * slot + bar).toFixed(2)}" y="${y(p.redirects).toFixed(2)}" width="${bar.toFixed(2)}" height="${(H - y(p.redirects)).toFixed(2)}"/>`
          : '',
      )}
    </svg>
    <div class="ticks" aria-hidden="true"><span>${periods[0]?.label ?? ''}</span><span>most in one ${unit}: ${max}</span><span>${periods.at(-1)?.label ?? ''}</span></div>
    <figcaption><span class="key c">Clicks</span> <span class="key r">Redirects</span> · ${summary}</figcaption>
  </figure>`;
}

export function linkPage(ctx: PageContext, id: number): InspectorPage | null {
  const accountId = ctx.bench.accounts[ctx.account];
  const l = link(ctx.settings, accountId, id);
  if (!l) return null;
  const type = CHART_TYPES.find((t) => t === ctx.query.get('type')) ?? 'daily';
  const now = ctx.settings.clock.now();
  // The very answer of Link/GetStats for this link, over its default interval.
  const answer = LINK_HANDLERS['link.stats']({ settings: ctx.settings, accountId, now, values: { ids: [id], type } });
  const data = answer.data as { items: Array<Record<string, string | number>>; totals: Record<string, number> };
  const periods: Period[] = data.items.map((r) => ({ label: String(r.param), clicks: Number(r.clicks0), redirects: Number(r.redirects0) }));
  const head = html`<p><a href="${pageHref(ctx, `${BASE}/links`)}">All links</a></p>
    <form class="filters" method="get" action="${BASE}/links/${id}" aria-label="Chart period">
      ${ctx.account > 0 ? html`<input type="hidden" name="account" value="${ctx.account + 1}">` : ''}
      ${choice('type', 'Per', type, [['daily', 'day (last 90 days)'], ['hourly', 'hour (last 7 days)']])}
      <p class="actions"><button type="submit">Show</button></p>
    </form>`;
  const live = html`<dl class="facts">
      <dt>Short link</dt><dd><a href="/${l.code}" target="_blank" rel="noopener noreferrer">${shortLinkOf(ctx.settings, l.code)}</a></dd>
      <dt>Full link</dt><dd class="url">${l.fullLink}</dd>
      <dt>Status</dt><dd>${l.status === 1 ? 'active' : 'inactive'}</dd>
      <dt>Moderation</dt><dd>${l.moderatorStatus === 1 ? 'approved' : 'blocked'}${l.moderatorComment ? `: ${l.moderatorComment}` : ''}</dd>
      <dt>Expires</dt><dd>${l.expirationDate ?? 'never'}${l.expired ? ' (expired)' : ''}</dd>
      <dt>Clicks</dt><dd class="clicks">${l.clicks}</dd>
      <dt>Redirects</dt><dd class="redirects">${l.redirects}</dd>
      <dt>Comment</dt><dd class="comment">${l.comment ?? ''}</dd>
      <dt>Created</dt><dd>${time(ctx, l.createTs)}</dd>
    </dl>
    <h2>Clicks and redirects per ${type === 'hourly' ? 'hour' : 'day'}</h2>
    ${chart(periods, type)}
    <p class="totals">Link/GetStats totals: <span class="total-clicks">${data.totals.totalClicks0}</span> clicks, <span class="total-redirects">${data.totals.totalRedirects0}</span> redirects.</p>
    <details><summary>The numbers, per ${type === 'hourly' ? 'hour' : 'day'}</summary>
      <table class="stats"><thead><tr><th scope="col">Period</th><th scope="col" class="num">Clicks</th><th scope="col" class="num">Redirects</th></tr></thead>
      <tbody>${periods.map((p) => html`<tr><th scope="row">${p.label}</th><td class="num">${p.clicks}</td><td class="num">${p.redirects}</td></tr>`)}</tbody></table>
    </details>`;
  return { title: `Link ${l.code}`, nav: 'links', topics: ['links'], head, live };
}
