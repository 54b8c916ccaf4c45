// The smaller inspector pages: campaigns and their links, the accounts (one
// per API key, keys masked) and the controls (reset, the clock, faults, one
// message's status, and the control API a test uses for each).

import { FAULT_KINDS, parseFaults } from '../control/faults.js';
import { FORCEABLE } from '../service/lifecycle.js';
import { statusWithCode } from '../../output/words.js';
import { html, count } from './html.js';
import { campaignStatusWord, fromNow, money, shownOf } from '../../output/words.js';
import { accountTotals, campaigns } from './inspect.js';
import { badge, BASE, keyLabel, pageHref, time, type InspectorPage, type PageContext } from './page.js';

const CAMPAIGN_LIMIT = 200;

/** The control API, as the Controls page lists it: what a test sends for what this page does, and more. */
const CONTROL_API: Array<[string, string]> = [
  ['GET /_emulator/messages?to=&text=&since=&limit=', 'the messages sent, newest first, with statuses and times'],
  ['GET /_emulator/messages?to=…&wait=30s', 'the same, held until a matching message is stored (at most 300 s): what smslink inbox wait asks'],
  ['POST /_emulator/messages/status {"id": 12, "status": "UNDELIV"}', 'one message given a final status now: smslink inbox set-status'],
  ['POST /_emulator/deliver', 'every message on its way gets its final status now'],
  ['POST /_emulator/clock {"advance": 5}', 'moves the clock ahead (GET tells the time)'],
  ['POST /_emulator/faults {"rate": 0.2, "kinds": ["503"]}', 'faults on or off (GET tells them)'],
  ['POST /_emulator/reset', 'back to the seed'],
  ['GET /_emulator/livez, /_emulator/readyz', 'the process answers; the emulator is ready (no token needed): smslink serve wait'],
];

export function campaignsPage(ctx: PageContext): InspectorPage {
  const list = campaigns(ctx.settings, ctx.bench.accounts[ctx.account], CAMPAIGN_LIMIT);
  const live =
    list.items.length === 0
      ? html`<p class="empty">No campaigns yet. Every message sent makes one; seed files can make others.</p>`
      : html`<p class="count">${shownOf(list.items.length, list.total, 'campaign')}${list.total > list.items.length ? ', the newest' : ''}</p>
      <ul class="cards">${list.items.map(
        (c) => html`<li id="c${c.id}"><h2>Campaign ${c.id}${c.name ? html` <span class="sub">“${c.name}”</span>` : ''}</h2>
          <p>${time(ctx, c.createTs)} · ${count(c.messages, 'message')}${c.status ? html` · ${badge(campaignStatusWord(c.status), c.status === 'DONE' ? 'ok' : 'wait')}` : ''}
            ${c.messages ? html` · <a href="${pageHref(ctx, '/', { campaign: c.id })}">its messages</a>` : ''}</p>
          ${
            c.links.length === 0
              ? html`<p class="sub">No short links.</p>`
              : html`<table><caption class="sr">Short links of campaign ${c.id}</caption>
              <thead><tr><th scope="col">Short link</th><th scope="col">Full link</th><th scope="col" class="num">Clicks</th><th scope="col" class="num">Redirects</th><th scope="col">Comment</th></tr></thead>
              <tbody>${c.links.map(
                (l) => html`<tr><th scope="row" data-label="Short link"><a href="${pageHref(ctx, `${BASE}/links/${l.id}`)}">${l.code}</a></th>
                  <td data-label="Full link" class="url">${l.fullLink}</td><td data-label="Clicks" class="num">${l.clicks}</td>
                  <td data-label="Redirects" class="num">${l.redirects}</td><td data-label="Comment">${l.comment ?? ''}</td></tr>`,
              )}</tbody></table>`
          }</li>`,
      )}</ul>`;
  return { title: 'Campaigns', nav: 'campaigns', topics: ['campaigns', 'links'], live };
}

export function accountsPage(ctx: PageContext): InspectorPage {
  const totals = accountTotals(ctx.settings);
  const keys = ctx.bench.keys;
  const live = html`<p>Each API key the emulator accepts is an account of its own: what one key made, another cannot see. Keys are masked.</p>
    <table><thead><tr><th scope="col">Key</th><th scope="col" class="num">Links</th><th scope="col" class="num">Campaigns</th><th scope="col" class="num">Messages</th><th scope="col">Show</th></tr></thead>
    <tbody>${keys.map((_, i) => {
      const t = totals.get(ctx.bench.accounts[i]) ?? { links: 0, campaigns: 0, messages: 0 };
      const as = i > 0 ? i + 1 : undefined;
      return html`<tr${i === ctx.account ? html` aria-current="true"` : ''}><th scope="row" data-label="Key">${keyLabel(keys, i)}</th>
        <td data-label="Links" class="num">${t.links}</td><td data-label="Campaigns" class="num">${t.campaigns}</td><td data-label="Messages" class="num">${t.messages}</td>
        <td data-label="Show"><a href="${pageHref({ ...ctx, account: 0 }, '/', { account: as })}">messages</a> · <a href="${pageHref({ ...ctx, account: 0 }, `${BASE}/links`, { account: as })}">links</a></td></tr>`;
    })}</tbody></table>`;
  return { title: 'Accounts', nav: 'accounts', topics: ['accounts'], live };
}

export function controlsPage(ctx: PageContext): InspectorPage {
  const s = ctx.settings;
  const f = ctx.bench.faults();
  const drawn = parseFaults(f.kinds);
  const latency = drawn.find((x) => x.kind === 'latency');
  const pending = ctx.bench.pendingSeconds();
  const foot = html`<section aria-labelledby="status-title"><h2 id="status-title">One message's status</h2>
      <form method="post" action="${BASE}/messages/status" data-control class="inline">
        <p class="field"><label for="message-id">Message id</label><input id="message-id" name="id" type="number" min="1" step="1" required></p>
        <p class="field"><label for="final-status">Final status</label><select id="final-status" name="status">${FORCEABLE.map((st) => html`<option value="${st}">${statusWithCode(st)}</option>`)}</select></p>
        <p class="actions"><button type="submit">Set it now</button></p>
      </form>
    </section>
    <section aria-labelledby="clock-title"><h2 id="clock-title">Clock</h2>
      <form method="post" action="${BASE}/clock" data-control class="inline">
        <p class="field"><label for="advance">Move ahead by (seconds)</label><input id="advance" name="advance" type="number" min="0" step="1" value="5" required></p>
        <p class="actions"><button type="submit">Advance clock</button></p>
      </form>
    </section>
    <section aria-labelledby="faults-title"><h2 id="faults-title">Faults</h2>
      <form method="post" action="${BASE}/faults" data-control>
        <p class="field"><label for="rate">Probability per /service/ request (0 to 1)</label><input id="rate" name="rate" type="number" min="0" max="1" step="0.05" value="${f.rate || 0.2}" required></p>
        <fieldset><legend>Faults to draw from</legend>${FAULT_KINDS.map(
          (k) => html`<label class="check"><input type="checkbox" name="kinds" value="${k === 'latency' ? `latency:${latency?.minMs ?? 50}-${latency?.maxMs ?? 500}ms` : k}"${drawn.some((x) => x.kind === k) ? html` checked` : ''}> ${k === 'latency' ? `latency ${latency?.minMs ?? 50}-${latency?.maxMs ?? 500} ms` : k}</label>`,
        )}</fieldset>
        <p class="actions"><button type="submit">Switch faults on</button></p>
      </form>
      <form method="post" action="${BASE}/faults" data-control><input type="hidden" name="rate" value="0"><p class="actions"><button type="submit">Switch faults off</button></p></form>
    </section>
    <section aria-labelledby="api-title"><h2 id="api-title">Control API</h2>
      <p>What a test sends for each of these, JSON under /_emulator/ (docs/emulator-reference.md, “Test-control API”):</p>
      <dl class="params">${CONTROL_API.map(([call, what]) => html`<dt><code>${call}</code></dt><dd>${what}</dd>`)}</dl>
    </section>`;
  const live = html`<h2>Now</h2><dl class="facts">
      <dt>Emulator time</dt><dd>${time(ctx, s.clock.now())} (${s.tz.name})</dd>
      <dt>Messages on their way</dt><dd>${pending ? `final ${fromNow(pending)} (Deliver pending now: at once, the clock stays)` : 'none'}</dd>
      <dt>Faults</dt><dd>${f.rate > 0 ? html`${badge('on', 'bad')} ${Math.round(f.rate * 1000) / 10}% of requests, from ${f.kinds.join(', ')}` : badge('off', 'ok')}</dd>
      <dt>Faults injected</dt><dd>${FAULT_KINDS.filter((k) => f.counts[k] > 0).map((k) => `${k} ${f.counts[k]}`).join(', ') || 'none'}</dd>
      <dt>Time scale</dt><dd>${s.timeScale}x</dd>
      <dt>Moderation</dt><dd>${s.moderation ? 'on' : 'off'}</dd>
      <dt>Registered senders</dt><dd>${[...s.senders].join(', ') || 'none'}</dd>
      <dt>Blocked pattern</dt><dd>${s.blockPattern?.source ?? 'none'}</dd>
      <dt>Price of a segment</dt><dd>${money(s.price, s.currency)}</dd>
      <dt>Short links</dt><dd>${s.shortBase}/&lt;code&gt;</dd>
    </dl>`;
  return { title: 'Controls', nav: 'controls', topics: ['controls', 'messages'], live, foot };
}

