// The frame every inspector page shares: head, navigation, the account
// picker, the quick controls, and the live region that the page's script
// fetches again when the server says one of its topics changed.

import { FINAL_STATUSES } from '../../catalog/codes.js';
import { maskKey } from '../../secrets.js';
import type { Topic } from './activity.js';
import type { Bench } from '../control/controls.js';
import type { EmulatorSettings } from '../service/handler.js';
import { html, href, type Html } from './html.js';
import { statusWithCode, statusWord } from '../../output/words.js';

export const BASE = '/_emulator';
export const ASSET_VERSION = '4';

export interface PageContext {
  settings: EmulatorSettings;
  bench: Bench;
  /** Index into bench.keys of the account shown. */
  account: number;
  query: URLSearchParams;
  path: string;
}

export interface InspectorPage {
  title: string;
  /** Which navigation entry is current. */
  nav: 'messages' | 'links' | 'campaigns' | 'accounts' | 'requests' | 'controls';
  /** Changes that make the live region out of date. */
  topics: readonly Topic[];
  /** Above the live region: filters and forms, kept while the region is refreshed. */
  head?: Html;
  live: Html;
  /** Below the live region. */
  foot?: Html;
}

const NAV: Array<[InspectorPage['nav'], string, string]> = [
  ['messages', 'Messages', '/'],
  ['links', 'Links', `${BASE}/links`],
  ['campaigns', 'Campaigns', `${BASE}/campaigns`],
  ['accounts', 'Accounts', `${BASE}/accounts`],
  ['requests', 'Requests', `${BASE}/requests`],
  ['controls', 'Controls', `${BASE}/controls`],
];

/** "Key 2 (********wxyz)": keys are told apart by their place in the list. */
export function keyLabel(keys: readonly string[], i: number): string {
  return `Key ${i + 1} (${maskKey(keys[i])})`;
}

/** The account in the query (`account=2` is the second key), else the first. */
export function accountOf(query: URLSearchParams, keys: readonly string[]): number {
  const n = Number(query.get('account'));
  return Number.isInteger(n) && n >= 1 && n <= keys.length ? n - 1 : 0;
}

/** A link to another page of the inspector, keeping the account shown. */
export function pageHref(ctx: PageContext, path: string, query: Record<string, string | number | undefined | null> = {}): string {
  return href(path, { account: ctx.account > 0 ? ctx.account + 1 : undefined, ...query });
}

export function time(ctx: PageContext, ms: number | null): string {
  return ms === null ? '' : ctx.settings.tz.format(ms);
}

/** The time of day of a moment, as time() writes it: `10:00:02`. */
export function timeOfDay(ctx: PageContext, ms: number): string {
  return time(ctx, ms).slice(11);
}

function accountPicker(ctx: PageContext): Html {
  const keys = ctx.bench.keys;
  const kept = [...ctx.query].filter(([k]) => k !== 'account' && k !== 'partial' && k !== 'to');
  // A link's page is of one account's link: another account goes to its list.
  const action = ctx.path.startsWith(`${BASE}/links/`) ? `${BASE}/links` : ctx.path;
  return html`<form class="account" method="get" action="${action}">
      <label for="account-pick">Account</label>
      <select id="account-pick" name="account">${keys.map(
        (_, i) => html`<option value="${i + 1}"${i === ctx.account ? html` selected` : ''}>${keyLabel(keys, i)}</option>`,
      )}</select>
      ${kept.map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`)}
      <button type="submit">Show</button>
    </form>`;
}

function quickControls(): Html {
  return html`<div class="quick" role="group" aria-label="Controls">
      <form method="post" action="${BASE}/deliver" data-control>
        <button type="submit" title="Every message on its way gets its final status now; the clock does not move">Deliver pending now</button>
      </form>
      <form method="post" action="${BASE}/reset" data-control data-confirm="Reset the emulator to its seed? Everything made since is lost.">
        <button type="submit" class="danger">Reset</button>
      </form>
    </div>`;
}

/** The whole document, or with `?partial=1` only the live region (what the script fetches). */
export function renderPage(ctx: PageContext, page: InspectorPage): string {
  if (ctx.query.get('partial') === '1') return page.live.text;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${page.title} · smslink emulator</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${BASE}/assets/inspector.css?v=${ASSET_VERSION}">
<script src="${BASE}/assets/inspector.js?v=${ASSET_VERSION}" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header>
  <div class="bar">
    <p class="brand"><a href="${pageHref(ctx, '/')}">smslink emulator</a></p>
    ${accountPicker(ctx)}
    ${quickControls()}
  </div>
  <nav aria-label="Inspector">
    <ul>${NAV.map(
      ([id, label, path]) => html`<li><a href="${pageHref(ctx, path)}"${id === page.nav ? html` aria-current="page"` : ''}>${label}</a></li>`,
    )}</ul>
  </nav>
</header>
<main id="main" tabindex="-1">
  <h1>${page.title}</h1>
  ${page.head ?? ''}
  <div id="live" data-topics="${page.topics.join(' ')}">${page.live}</div>
  ${page.foot ?? ''}
</main>
<footer>
  <p id="live-status" role="status" aria-live="polite"></p>
</footer>
</body>
</html>
`.text;
}

/** A labelled text input of a filter form. */
export function field(id: string, label: string, value: string | null, attrs: Html = html``): Html {
  return html`<p class="field"><label for="${id}">${label}</label><input id="${id}" name="${id}" value="${value ?? ''}" ${attrs}></p>`;
}

/** A labelled select of a filter form; `options` as [value, label]. */
export function choice(id: string, label: string, value: string | null, options: Array<[string, string]>): Html {
  return html`<p class="field"><label for="${id}">${label}</label><select id="${id}" name="${id}">${options.map(
    ([v, l]) => html`<option value="${v}"${v === (value ?? '') ? html` selected` : ''}>${l}</option>`,
  )}</select></p>`;
}

/** A status word as a badge; its class gives it a colour, its text says it. */
export function badge(word: string, kind: string): Html {
  return html`<span class="badge ${kind}">${word}</span>`;
}

/** A message status as a coloured badge: its word in a list, with the service's code beside it in a record (one message shown whole). */
export function statusBadge(code: string, form: 'table' | 'record'): Html {
  return badge(form === 'record' ? statusWithCode(code) : statusWord(code), statusKind(code));
}

/** A message status's colour: delivered, failed for good, or still on its way. */
export function statusKind(status: string): string {
  if (status === 'DELIVRD') return 'ok';
  return FINAL_STATUSES.has(status) ? 'bad' : 'wait';
}
