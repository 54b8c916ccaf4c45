// A process that opens emulator databases when told to, for tests of many
// processes opening one file at the same instant. Each stdin line is the path
// of a database: the child opens it as the emulator does (Database.open, bundled
// from the sources by the test that starts it), adds one link, closes it
// and answers one stdout line: "ok", or "error CODE MESSAGE". It prints
// "ready" first, once its modules are loaded, so that a test can start every
// child before it sends the first path; it exits when stdin ends.
import { createInterface } from 'node:readline';
import { Database } from '../../src/emulator/store/database.js';

const tag = `p${process.pid}`;
let round = 0;
process.stdout.write('ready\n');
for await (const path of createInterface({ input: process.stdin })) {
  round++;
  try {
    const db = Database.open(path);
    try {
      const accountId = db.account('concurrent-open', Date.now());
      const made = db.insertLink({
        accountId,
        code: `${tag}r${round}`,
        fullLink: `https://example.com/${tag}/${round}`,
        status: 1,
        moderatorStatus: 1,
        moderatorComment: null,
        comment: tag,
        expirationDate: null,
        expiresTs: null,
        campaignId: null,
        now: Date.now(),
      });
      if (made === null) throw Object.assign(new Error(`code ${tag}r${round} taken`), { code: 'TAKEN' });
    } finally {
      db.close();
    }
    process.stdout.write('ok\n');
  } catch (err) {
    const { code, message } = err as { code?: string; message: string };
    process.stdout.write(`error ${code ?? '-'} ${String(message).replace(/\s+/g, ' ')}\n`);
  }
}
