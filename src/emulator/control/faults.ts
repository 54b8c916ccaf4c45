// Fault injection (issue 5): with probability faultRate a /service/ request
// gets one fault drawn from the list, from a seeded PRNG so a run can be
// repeated. Faults that spoil or drop the answer (reset, 500, 502, truncated,
// stall) and latency strike after the operation was carried out, as on a real
// network; 503 and code30 strike before, so nothing was done.

import type { ServerResponse } from 'node:http';
import type { ServiceExchange, ServiceHooks } from '../server.js';
import { CONTENT_TYPE, render } from '../service/output.js';

export type FaultKind = 'latency' | 'reset' | '500' | '502' | '503' | 'code30' | 'truncated' | 'stall';

export interface Fault {
  kind: FaultKind;
  /** latency only: the delay is drawn from minMs..maxMs. */
  minMs?: number;
  maxMs?: number;
}

export const FAULT_KINDS: readonly FaultKind[] = ['latency', 'reset', '500', '502', '503', 'code30', 'truncated', 'stall'];
/** Drawn from when no list is given: every kind but stall. */
export const DEFAULT_FAULTS = 'latency:50-500ms,reset,500,502,503,code30,truncated';
/** Retry-After sent with a 503, in seconds. */
export const RETRY_AFTER_S = 1;

const LATENCY = /^latency(?::(\d+)(?:-(\d+))?ms)?$/;

/** The items of a fault list, one a fault (`["latency:50-500ms", "reset"]`), from the list or its `--faults` spelling. */
export function faultItems(list: string | readonly string[]): string[] {
  return (typeof list === 'string' ? list.split(',') : list).map((s) => s.trim()).filter((s) => s !== '');
}

/** Parses `latency:50-500ms,reset,503` (or a list of such items). Throws RangeError naming a bad item. */
export function parseFaults(list: string | readonly string[]): Fault[] {
  const items = faultItems(list);
  if (items.length === 0) throw new RangeError('the fault list is empty');
  return items.map((item) => {
    const m = LATENCY.exec(item);
    if (m) {
      const minMs = m[1] === undefined ? 50 : Number(m[1]);
      const maxMs = m[2] === undefined ? (m[1] === undefined ? 500 : minMs) : Number(m[2]);
      if (maxMs < minMs) throw new RangeError(`fault "${item}": the range must go from low to high`);
      return { kind: 'latency', minMs, maxMs };
    }
    if ((FAULT_KINDS as readonly string[]).includes(item) && item !== 'latency') return { kind: item as FaultKind };
    throw new RangeError(`unknown fault "${item}"; known: latency:MIN-MAXms, ${FAULT_KINDS.filter((k) => k !== 'latency').join(', ')}`);
  });
}

/** mulberry32: a small, fast PRNG; the same seed gives the same draws. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface FaultOptions {
  faultRate: number;
  faults?: string | readonly string[];
  seed?: number;
}

export interface FaultInjector extends ServiceHooks {
  /** How many faults of each kind were injected so far. */
  readonly counts: Readonly<Record<FaultKind, number>>;
  /** Drops the requests held by `stall` (on close). */
  dispose(): void;
}

function html(res: ServerResponse, status: number, title: string, headers: Record<string, string> = {}): void {
  const body = `<html><head><title>${status} ${title}</title></head><body><h1>${status} ${title}</h1></body></html>\n`;
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

export function faultInjector(opts: FaultOptions): FaultInjector {
  const faults = parseFaults(opts.faults ?? DEFAULT_FAULTS);
  const random = prng(opts.seed ?? 1);
  const counts = Object.fromEntries(FAULT_KINDS.map((k) => [k, 0])) as Record<FaultKind, number>;
  const drawn = new WeakMap<ServiceExchange, { fault: Fault; delayMs: number }>();
  const stalled = new Set<ServerResponse>();

  return {
    counts,
    before(x) {
      if (random() >= opts.faultRate) return false;
      const fault = faults[Math.floor(random() * faults.length)];
      const delayMs = fault.kind === 'latency' ? fault.minMs! + Math.floor(random() * (fault.maxMs! - fault.minMs! + 1)) : 0;
      counts[fault.kind]++;
      x.fault = fault.kind;
      if (fault.kind === '503') {
        html(x.res, 503, 'Service Unavailable', { 'retry-after': String(RETRY_AFTER_S) });
        return true;
      }
      if (fault.kind === 'code30') {
        const body = render({ code: 30, data: null, message: 'rate limit: the method was called too often; nothing was done' }, x.output);
        x.res.writeHead(200, { 'content-type': CONTENT_TYPE[x.output], 'content-length': Buffer.byteLength(body) });
        x.res.end(body);
        return true;
      }
      drawn.set(x, { fault, delayMs });
      return false;
    },
    async after(x, answer) {
      const d = drawn.get(x);
      if (!d) return false;
      switch (d.fault.kind) {
        case 'latency':
          await new Promise((resolve) => setTimeout(resolve, d.delayMs));
          return false;
        case 'reset':
          x.req.socket.destroy();
          return true;
        case '500':
          html(x.res, 500, 'Internal Server Error');
          return true;
        case '502':
          html(x.res, 502, 'Bad Gateway');
          return true;
        case 'truncated': {
          const half = answer.body.slice(0, Math.floor(answer.body.length / 2));
          x.res.writeHead(answer.status, { 'content-type': answer.type, 'content-length': Buffer.byteLength(half) });
          x.res.end(half);
          return true;
        }
        case 'stall':
          stalled.add(x.res);
          x.res.on('close', () => stalled.delete(x.res));
          return true;
        default:
          return false;
      }
    },
    dispose() {
      for (const res of stalled) res.destroy();
      stalled.clear();
    },
  };
}
