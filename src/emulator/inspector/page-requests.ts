// The request log page: the latest requests, newest first, each opening to
// the parameters it sent and the answer it got (the key masked), filtered by
// operation and result code in the query string, so it works without script.
// Calls of live operations this emulator does not model are counted on top.

import { OPERATIONS } from '../../catalog/index.js';
import { describeCode, RESULT_CODES } from '../../catalog/codes.js';
import { shownKey } from '../request-log.js';
import type { Activity, LogEntry } from './activity.js';
import { KEPT_CHARS } from './activity.js';
import { liveName, NOT_MODELLED } from '../service/live-modules.js';
import { isKeyName, maskKey, MIN_SECRET_LENGTH } from '../../secrets.js';
import { BASE, badge, choice, keyLabel, pageHref, time, type InspectorPage, type PageContext } from './page.js';
import { html, count, type Html } from './html.js';
import { elapsed } from '../../output/words.js';

const LOG_SHOWN = 200;
/** The operation filter's value for short-link visits. */
const VISITS = 'visit';
/** The operation filter's value for requests of the control API. */
const CONTROLS = 'control';
/** The code filter's value for requests that got no envelope (a fault answered, or nothing). */
const NO_CODE = 'none';
/** Parameters shown of one request: a form may carry thousands. */
const PARAMS_SHOWN = 100;

function keyShown(keys: readonly string[], key: unknown): string {
  if (typeof key !== 'string' || key === '') return 'no key';
  const i = keys.indexOf(key);
  return i >= 0 ? keyLabel(keys, i) : `unknown key (${shownKey(key)})`;
}

/** A call of an operation the live service has and this emulator does not model. */
const notModelled = (e: LogEntry) => !e.visit && e.code === NOT_MODELLED;

function result(e: LogEntry): string {
  if (e.visit) return e.status === 302 ? 'redirected (302)' : `refused (${e.status})`;
  if (e.control) return e.status < 400 ? `done (${e.status})` : `refused (HTTP ${e.status})`;
  if (notModelled(e)) return `code ${e.code}: not modelled here`;
  const code = e.code === null ? '' : `code ${e.code} ${describeCode(e.code)}`;
  const http = e.status === 0 ? 'no answer' : e.status === 200 ? '' : `HTTP ${e.status}`;
  return [code, http].filter(Boolean).join(', ');
}

/** What the query asks to see: an operation (any spelling of it matches), a code; unknown values match nothing. */
function filterOf(q: URLSearchParams): (e: LogEntry) => boolean {
  const op = q.get('op')?.toLowerCase() || null;
  const code = q.get('code') || null;
  return (e) => {
    if (op !== null && (op === VISITS ? !e.visit : op === CONTROLS ? !e.control : e.visit || e.op.toLowerCase() !== op)) return false;
    if (code !== null && (code === NO_CODE ? e.code !== null : String(e.code) !== code)) return false;
    return true;
  };
}

/**
 * The keys a request carried: the one it was answered with and the value of
 * every parameter named as a key in any case or bracket form (APIKEY=,
 * apiKey[]=), which the service does not take but the sender meant as one
 * (those of 8 characters or more: a shorter value could be any word).
 */
function keysOf(e: LogEntry): string[] {
  const keys = typeof e.key === 'string' && e.key !== '' ? [e.key] : [];
  for (const text of [e.query, e.body]) for (const [name, value] of new URLSearchParams(text)) if (value.length >= MIN_SECRET_LENGTH && isKeyName(name)) keys.push(value);
  return keys;
}

/** Hides the keys wherever a text holds them. */
function withoutKeys(text: string, keys: readonly string[]): string {
  return keys.reduce((t, key) => t.split(key).join(maskKey(key)), text);
}

/** The parameters sent, in the order sent, query first; every key masked. */
function parameters(e: LogEntry, keys: readonly string[]): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const text of [e.query, e.body]) {
    for (const [name, value] of new URLSearchParams(text)) {
      if (out.length === PARAMS_SHOWN) return out;
      out.push([withoutKeys(name, keys), isKeyName(name) ? shownKey(value) : withoutKeys(value, keys)]);
    }
  }
  return out;
}

/** The answer as indented JSON, or as sent when it is cut short or not JSON. */
function answerText(e: LogEntry, keys: readonly string[]): string | null {
  if (e.answer === null) return null;
  const text = withoutKeys(e.answer, keys);
  if (text.length >= KEPT_CHARS) return `${text}\n… (the first ${KEPT_CHARS} characters)`;
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

function details(e: LogEntry): Html {
  if (e.visit) return html`<p class="sub">A visit of the short link ${e.op}: no parameters.</p>`;
  const keys = keysOf(e);
  const params = parameters(e, keys);
  const answer = answerText(e, keys);
  const cut = e.query.length >= KEPT_CHARS || e.body.length >= KEPT_CHARS || params.length === PARAMS_SHOWN;
  return html`<h3>Parameters</h3>
    ${params.length === 0 ? html`<p class="sub">None.</p>` : html`<dl class="params">${params.map(([k, v]) => html`<dt>${k}</dt><dd>${v}</dd>`)}</dl>`}
    ${cut ? html`<p class="sub">Only the first parameters are kept.</p>` : ''}
    <h3>Answer</h3>
    ${answer === null ? html`<p class="sub">${e.fault ? `None: the fault ${e.fault} answered instead.` : 'None was sent.'}</p>` : html`<pre class="answer">${answer}</pre>`}`;
}

function row(ctx: PageContext, seq: number, e: LogEntry): Html {
  const kind = e.code === 0 || e.status === 302 || (e.control && e.status < 400) ? 'ok' : e.code === null && !e.visit ? 'bad' : 'wait';
  return html`<li><details id="r${seq}"><summary>
      <span class="when">${time(ctx, e.at)}</span>
      <span class="op">${e.visit ? `visit ${e.op}` : e.op}</span>
      ${badge(result(e), kind)}
      ${e.fault ? html`<span class="fault">fault ${e.fault}</span>` : ''}
      ${e.visit || e.control ? '' : html`<span class="key">${keyShown(ctx.bench.keys, e.key)}</span>`}
      <span class="ms">${elapsed(e.ms)}</span>
    </summary>${details(e)}</details></li>`;
}

/**
 * How many of the kept requests called live operations this emulator does
 * not model, by operation (as the documentation spells it), linked to the filter that
 * shows them: what an app would have done on the live service and did not here.
 */
function unmodelledNote(ctx: PageContext, activity: Activity): Html | string {
  const calls = activity.recent(undefined, notModelled);
  if (calls.length === 0) return '';
  const byOp = new Map<string, number>();
  for (const { entry } of calls) byOp.set(liveName(entry.op), (byOp.get(liveName(entry.op)) ?? 0) + 1);
  const ops = [...byOp]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([op, n]) => `${op} (${n})`)
    .join(', ');
  return html`<p class="note" role="status">${count(calls.length, 'request')} called operations of the live service that this emulator does not model, so nothing was done: ${ops}. <a href="${pageHref(ctx, `${BASE}/requests`, { code: NOT_MODELLED })}">Show them</a></p>`;
}

export function requestsPage(ctx: PageContext, activity: Activity): InspectorPage {
  const q = ctx.query;
  const filtered = Boolean(q.get('op') || q.get('code'));
  const found = activity.recent(LOG_SHOWN, filterOf(q));
  const ops: Array<[string, string]> = [['', 'any'], ...OPERATIONS.map((op): [string, string] => [`${op.module}/${op.operation}`, `${op.module}/${op.operation}`]), [VISITS, 'short-link visits'], [CONTROLS, 'control API']];
  const codes: Array<[string, string]> = [['', 'any'], ...Object.keys(RESULT_CODES).map((c): [string, string] => [c, `${c} ${describeCode(Number(c))}`]), [NO_CODE, 'none (no answer)']];
  const head = html`<form class="filters" method="get" action="${BASE}/requests" role="search" aria-label="Filter requests">
      ${ctx.account > 0 ? html`<input type="hidden" name="account" value="${ctx.account + 1}">` : ''}
      ${choice('op', 'Operation', q.get('op'), ops)}
      ${choice('code', 'Result code', q.get('code'), codes)}
      <p class="actions"><button type="submit">Filter</button> <a href="${pageHref(ctx, `${BASE}/requests`)}">Clear</a></p>
    </form>`;
  const live =
    activity.size === 0
      ? html`<p class="empty">No requests yet. Calls to /service/, visits of short links and changes made through the control API show here as they come.</p>`
      : found.length === 0
        ? html`<p class="empty">None of the ${count(activity.size, 'latest request')} matches this filter.</p>`
        : html`${unmodelledNote(ctx, activity)}<p class="count">${filtered ? `${count(found.length, 'request')} of the latest ${activity.size} match` : `The ${count(found.length, 'latest request')}`}, newest first. Open one to see what it sent and got.</p>
      <ol class="log">${found.map(({ seq, entry }) => row(ctx, seq, entry))}</ol>`;
  return { title: 'Requests', nav: 'requests', topics: ['log'], head, live };
}
