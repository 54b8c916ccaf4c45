// A stateful stand-in for the service on the recording server: Link/Create
// and SendSmsMessage remember what they made, so bulk tests can count how
// many times each row reached the service. Faults can be planned per row.
import type { Answer, Recorded, RecordingServer } from './recording-server.js';

export interface FakeService {
  /** How many times each fullLink / recipient was created or sent. */
  created: Map<string, number>;
  /** Plans a fault for requests whose key (fullLink or recipient) matches. */
  fault(match: (key: string) => boolean, answer: 'code1' | 'lost' | 'http502' | 'code30-once' | 'code999'): void;
  /** Requests in flight right now, and the most seen at once. */
  inFlight: { now: number; max: number };
  /** Delay each answer by this many ms. */
  delayMs: number;
}

export function fakeService(server: RecordingServer): FakeService {
  const created = new Map<string, number>();
  const faults: Array<{ match: (key: string) => boolean; answer: string; used?: boolean }> = [];
  const svc: FakeService = {
    created,
    fault: (match, answer) => faults.push({ match, answer }),
    inFlight: { now: 0, max: 0 },
    delayMs: 0,
  };
  let nextId = 1000;
  server.respond((req: Recorded): Answer | undefined => {
    const form = new URLSearchParams(req.body);
    const key = form.get('data[fullLink]') ?? form.get('recipient');
    if (key === null) return undefined;
    const fault = faults.find((f) => f.match(key) && !f.used);
    if (fault?.answer === 'code1') return { body: { code: 1, data: { fullLink: 'rejected' }, message: 'validation' } };
    if (fault?.answer === 'code30-once') {
      fault.used = true;
      return { body: { code: 30, data: null, message: 'rate limit' } };
    }
    // The operation is carried out; for these the answer is then lost or says nothing clear.
    created.set(key, (created.get(key) ?? 0) + 1);
    if (fault?.answer === 'code999') return { body: { code: 999, data: null, message: 'general error' } };
    if (fault?.answer === 'http502') return { status: 502, body: '<html>bad gateway</html>' };
    if (fault?.answer === 'lost') return { body: '{"code":0,"data":{"id"' };
    const id = String(nextId++);
    return req.path.endsWith('Create')
      ? { body: { code: 0, data: { id, code: `c${id}`, shortLink: `https://sho.rt/c${id}` }, message: '' } }
      : { body: { code: 0, data: { campaignId: '1', messageId: id, status: 2 }, message: '' } };
  });
  const original = server.server.listeners('request')[0] as (...a: unknown[]) => void;
  server.server.removeAllListeners('request');
  server.server.on('request', (req, res) => {
    svc.inFlight.now += 1;
    svc.inFlight.max = Math.max(svc.inFlight.max, svc.inFlight.now);
    res.on('finish', () => (svc.inFlight.now -= 1));
    if (svc.delayMs) setTimeout(() => original(req, res), svc.delayMs);
    else original(req, res);
  });
  return svc;
}
