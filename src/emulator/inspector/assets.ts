// The inspector's stylesheet and script, served by the emulator itself (no
// CDN). The script fetches the page's live region again when the server says
// one of its topics changed (/_emulator/events), sends the control forms as
// JSON, and keeps a conversation scrolled to its newest message; pages work
// without it, but do not update by themselves.

export const CSS = `
*,*::before,*::after{box-sizing:border-box}
html{font:16px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1b1f;background:#fff}
body{margin:0}
a{color:#0b57d0}
a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible,summary:focus-visible,main:focus-visible{outline:3px solid #0b57d0;outline-offset:2px}
.skip{position:absolute;left:-9999px}
.skip:focus{left:.5rem;top:.5rem;background:#fff;padding:.5rem;z-index:2}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
header{background:#f3f4f8;border-bottom:1px solid #c9ccd6}
.bar{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1rem;padding:.5rem 1rem}
.brand{margin:0;font-weight:700}
.brand a{color:#1b1b1f;text-decoration:none}
.account{display:flex;flex-wrap:wrap;align-items:center;gap:.4rem}
.quick{display:flex;gap:.5rem;margin-left:auto}
.quick form{margin:0}
nav ul{display:flex;gap:.25rem;margin:0;padding:0 1rem;list-style:none;overflow-x:auto}
nav a{display:block;padding:.55rem .75rem;text-decoration:none;color:#1b1b1f;border-bottom:3px solid transparent;white-space:nowrap}
nav a[aria-current=page]{border-color:#0b57d0;font-weight:600;color:#0b57d0}
main{padding:1rem;max-width:90rem;margin:0 auto}
h1{font-size:1.4rem;margin:.25rem 0 .75rem}
h2{font-size:1.1rem;margin:.5rem 0}
button{font:inherit;padding:.35rem .8rem;border:1px solid #0b57d0;border-radius:.35rem;background:#0b57d0;color:#fff;cursor:pointer}
button.danger{background:#fff;color:#a50e0e;border-color:#a50e0e}
input,select{font:inherit;padding:.3rem .45rem;border:1px solid #767985;border-radius:.3rem;background:#fff;color:#1b1b1f;max-width:100%}
label{font-weight:600}
.filters{display:flex;flex-wrap:wrap;align-items:flex-end;gap:.5rem 1rem;margin:0 0 1rem}
.filters p,.inline p{margin:0}
.field{display:flex;flex-direction:column;gap:.15rem;max-width:100%;min-width:0}
.field input{width:14rem}
.actions{display:flex;gap:.75rem;align-items:center}
fieldset{border:1px solid #c9ccd6;border-radius:.35rem;margin:.5rem 0}
.check{display:inline-flex;gap:.3rem;margin:.2rem 1rem .2rem 0;font-weight:400}
.empty,.note,.sub,.count{color:#4a4d57}
.badge{display:inline-block;padding:.05rem .45rem;border-radius:.8rem;font-size:.85rem;font-weight:600;white-space:nowrap}
.badge.ok{background:#e3f4e8;color:#0b5c26}
.badge.bad{background:#fce6e4;color:#9b0d0d}
.badge.wait{background:#fdf3d7;color:#6b4500}
.inbox{display:grid;grid-template-columns:minmax(0,1fr);gap:1rem}
.conversations ul{list-style:none;margin:0;padding:0;border:1px solid #c9ccd6;border-radius:.5rem;max-height:70vh;overflow:auto}
.conversations li+li{border-top:1px solid #e1e3ea}
.conversations a{display:block;padding:.5rem .7rem;color:#1b1b1f;text-decoration:none}
.conversations a[aria-current]{background:#e8effd;box-shadow:inset 4px 0 #0b57d0}
.conversations .num{font-weight:700}
.conversations .n{color:#4a4d57;font-size:.9rem}
.conversations .last{display:block;overflow:hidden;text-overflow:ellipsis;white-space:nowrap;color:#4a4d57}
.bubbles{list-style:none;margin:0;padding:.5rem;background:#f6f7fa;border-radius:.5rem;display:flex;flex-direction:column;gap:.75rem}
.msg{align-self:flex-end;max-width:min(36rem,100%);background:#dfe9fd;border-radius:1rem 1rem .25rem 1rem;padding:.6rem .8rem}
.msg p{margin:.15rem 0}
.who{display:flex;flex-wrap:wrap;gap:.25rem .6rem;font-size:.9rem;overflow-wrap:anywhere}
.who .when{color:#3f424b;margin-left:auto}
.text{white-space:pre-wrap;overflow-wrap:anywhere;font-size:1.05rem}
.facts{font-size:.85rem;color:#3f424b;overflow-wrap:anywhere}
.state{display:flex;flex-wrap:wrap;align-items:center;gap:.4rem;font-size:.85rem}
.timeline{display:flex;flex-wrap:wrap;gap:.2rem;margin:0;padding:0;list-style:none;color:#3f424b}
.timeline li+li::before{content:"→ ";color:#3f424b}
.timeline .st{font-weight:600;color:#1b1b1f}
.timeline .pending{font-style:italic}
.url,.comment{overflow-wrap:anywhere}
table{border-collapse:collapse;width:100%;margin:.5rem 0 1rem}
th,td{text-align:left;padding:.4rem .5rem;border-bottom:1px solid #e1e3ea;vertical-align:top}
thead th{background:#f3f4f8;font-size:.9rem}
.num{text-align:right;font-variant-numeric:tabular-nums}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.3rem 1rem;font-size:1rem;color:#1b1b1f}
dl.facts dt{font-weight:600}
dl.facts dd{margin:0;overflow-wrap:anywhere}
.cards{list-style:none;padding:0;display:grid;grid-template-columns:minmax(0,1fr);gap:1rem}
.cards h2,.cards p{overflow-wrap:anywhere}
.cards>li{border:1px solid #c9ccd6;border-radius:.5rem;padding:.5rem 1rem}
.chart{margin:0 0 1rem}
.chart svg{width:100%;height:12rem;background:#f6f7fa;border-radius:.35rem}
.chart .axis{stroke:#767985}
.chart rect.c{fill:#0b57d0}
.chart rect.r{fill:#b3541e}
.key.c::before{background:#0b57d0}
.key.r::before{background:#b3541e}
.chart .ticks{display:flex;justify-content:space-between;font-size:.85rem;color:#4a4d57}
.key::before{content:"";display:inline-block;width:.8rem;height:.8rem;margin-right:.3rem;vertical-align:-.1rem}
ol.log{list-style:none;margin:0;padding:0;border:1px solid #c9ccd6;border-radius:.5rem}
ol.log>li+li{border-top:1px solid #e1e3ea}
ol.log summary{display:flex;flex-wrap:wrap;align-items:baseline;gap:.2rem .75rem;padding:.45rem .7rem;cursor:pointer}
ol.log summary::before{content:"▸";color:#4a4d57}
ol.log details[open] summary::before{content:"▾"}
ol.log .op{font-weight:600;overflow-wrap:anywhere}
ol.log .when,ol.log .key,ol.log .ms,ol.log .fault{color:#3f424b;font-size:.9rem}
ol.log .ms{margin-left:auto;font-variant-numeric:tabular-nums}
ol.log .badge{white-space:normal}
ol.log details[open]{background:#f6f7fa}
ol.log details>:not(summary){margin-left:.7rem;margin-right:.7rem}
ol.log h3{font-size:.95rem;margin:.4rem 0 .2rem}
dl.params{display:grid;grid-template-columns:minmax(0,max-content) minmax(0,1fr);gap:.15rem .75rem;margin:0;font-size:.9rem}
dl.params dt{font-family:ui-monospace,monospace;overflow-wrap:anywhere}
dl.params dd{margin:0;overflow-wrap:anywhere;white-space:pre-wrap}
pre.answer{margin:0 0 .7rem;padding:.5rem;background:#fff;border:1px solid #e1e3ea;border-radius:.35rem;font-size:.85rem;white-space:pre-wrap;overflow-wrap:anywhere;max-height:24rem;overflow-y:auto}
section{margin-bottom:1rem}
section form{display:flex;flex-wrap:wrap;align-items:flex-end;gap:.5rem 1rem;margin:.5rem 0}
section form p{margin:0}
section fieldset{flex-basis:100%}
footer{padding:0 1rem 1rem;color:#4a4d57;font-size:.9rem}
.back{display:none;margin:0 0 .5rem}
@media (max-width:899px){
  .inbox.chosen .conversations,.filters.chosen{display:none}
  .inbox.chosen .back{display:block}
}
@media (min-width:900px){
  .inbox{grid-template-columns:minmax(16rem,22rem) minmax(0,1fr);align-items:start}
  .thread .bubbles{max-height:calc(100vh - 16rem);overflow:auto}
}
@media (max-width:720px){
  table thead{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
  table,tbody,tr,th,td{display:block;width:100%}
  tr{border:1px solid #c9ccd6;border-radius:.5rem;margin-bottom:.6rem;padding:.25rem .5rem}
  th[data-label],td[data-label]{display:flex;flex-wrap:wrap;align-items:baseline;gap:.25rem .5rem;border:0;padding:.2rem 0;text-align:left;overflow-wrap:anywhere}
  th[data-label]>*,td[data-label]>*{min-width:0}
  th[data-label]::before,td[data-label]::before{content:attr(data-label);flex:0 0 6.5rem;font-weight:600;color:#3f424b}
  .quick{margin-left:0}
  nav ul{flex-wrap:wrap;padding:0 .5rem}
}
`;

/** The header of a live region (`?partial=1`) with the emulator's time of day, for the script's "Updated at". */
export const UPDATED_AT = 'x-emulator-time';

export const SCRIPT = `'use strict';
(() => {
  const live = document.getElementById('live');
  const status = document.getElementById('live-status');
  const say = (text) => { if (status) status.textContent = text; };
  let updates = 0;

  /** Keeps a conversation at its newest message unless the reader scrolled up. */
  const thread = () => document.querySelector('.thread .bubbles');
  const atBottom = (box) => !box || box.scrollHeight - box.scrollTop - box.clientHeight < 48;
  const toBottom = () => { const box = thread(); if (box) box.scrollTop = box.scrollHeight; };
  toBottom();

  /** The live region's new text; \`at\`, the emulator's time of day when it was made, as the page writes times. */
  function swap(text, at) {
    const stick = atBottom(thread());
    const active = document.activeElement;
    const focusKey = active && live.contains(active) ? active.id || active.getAttribute('href') : null;
    // Rows the reader opened (the request log's) stay open.
    const opened = [...live.querySelectorAll('details[open][id]')].map((d) => d.id);
    live.innerHTML = text;
    for (const id of opened) { const d = document.getElementById(id); if (d) d.open = true; }
    if (focusKey) {
      const again = [...live.querySelectorAll('[id],[href]')].find((el) => el.id === focusKey || el.getAttribute('href') === focusKey);
      if (again) again.focus({ preventScroll: true });
    }
    if (stick) toBottom();
    updates++;
    document.body.dataset.updates = String(updates);
    say(at ? 'Updated at ' + at : 'Updated');
  }

  let busy = false;
  let again = false;
  async function refresh() {
    if (!live) return;
    if (busy) { again = true; return; }
    busy = true;
    try {
      do {
        again = false;
        const url = new URL(location.href);
        url.searchParams.set('partial', '1');
        const res = await fetch(url, { cache: 'no-store' });
        if (!res.ok) { say('Could not update this page (HTTP ' + res.status + ')'); break; }
        swap(await res.text(), res.headers.get('${UPDATED_AT}'));
      } while (again);
    } catch (err) {
      say('Could not update this page: ' + err.message);
    } finally {
      busy = false;
    }
  }

  if (live && 'EventSource' in window) {
    const topics = (live.dataset.topics || '').split(' ');
    const events = new EventSource('/_emulator/events');
    events.addEventListener('open', () => { document.body.dataset.live = 'on'; });
    events.addEventListener('change', (e) => {
      const changed = JSON.parse(e.data).topics;
      if (changed.some((t) => topics.includes(t))) refresh();
    });
    events.addEventListener('error', () => { document.body.dataset.live = 'off'; });
  }

  document.addEventListener('submit', async (e) => {
    const form = e.target;
    if (!(form instanceof HTMLFormElement) || !form.hasAttribute('data-control')) return;
    e.preventDefault();
    if (form.dataset.confirm && !window.confirm(form.dataset.confirm)) return;
    const body = {};
    for (const [k, v] of new FormData(form)) {
      if (k === 'kinds') (body.kinds = body.kinds || []).push(v);
      else body[k] = k === 'rate' || (k === 'advance' && v !== 'pending') ? Number(v) : v;
    }
    if (form.action.endsWith('/faults') && body.rate > 0 && !body.kinds) body.kinds = [];
    try {
      const res = await fetch(form.action, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const answer = await res.json().catch(() => ({}));
      say(res.ok ? answer.message || 'Done' : 'Refused: ' + (answer.error || 'HTTP ' + res.status));
    } catch (err) {
      say('Not sent: ' + err.message);
    }
    refresh();
  });
})();
`;
