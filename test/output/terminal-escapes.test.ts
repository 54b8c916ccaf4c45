// Text from the service never drives the terminal: csv, tsv, --jq strings and
// -q show its control characters escaped at a real terminal, as tables do,
// and pass them byte for byte to a pipe.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { LIVE_LINK, useRecordingServer } from '../helpers/recording-server.js';
import { runInPty, screenText } from '../helpers/pty.js';
import { binEnv } from '../helpers/run-cli.js';

const BIN = fileURLToPath(new URL('../../bin/smslink.js', import.meta.url));

/** A window title, a clipboard write (OSC 52), a screen clear, an 8-bit CSI, a bidi override. */
const HOSTILE = 'hi\u001b]0;pwned\u0007 \u001b]52;c;cm0gLXJmIH4=\u0007 \u001b[2J\u009b31m \u202eevil';
/** HOSTILE as a table shows it. */
const SHOWN = 'hi\\x1b]0;pwned\\x07 \\x1b]52;c;cm0gLXJmIH4=\\x07 \\x1b[2J\\x9b31m \\u202eevil';
const SHORT = 'https://sho.rt/x\u001b]0;title\u0007';
const SHORT_SHOWN = 'https://sho.rt/x\\x1b]0;title\\x07';

const recording = useRecordingServer('TERMESCAPE-0123456789abcdef');
const hostileAnswers = () =>
  recording.server.respond((req) => {
    const link = { ...LIVE_LINK, comment: HOSTILE, shortLink: SHORT };
    if (req.path.endsWith('/Get')) return { body: { code: 0, data: link, message: '' } };
    if (req.path.endsWith('/List')) return { body: { code: 0, data: { items: [link], totalItemCount: '1' }, message: '' } };
    // A status the service made up: -q prints it as it came.
    if (req.path.endsWith('/GetSMSStatus')) return { body: { code: 0, data: [{ id: '123456', status: SHORT, segNum: '1' }], message: '' } };
    return undefined;
  });

/** Bytes the terminal must never get from the data. */
// eslint-disable-next-line no-control-regex
const RAW = /\u001b|\u0007|\u009b|\u202e/;

/** What `smslink <args>` writes to a pipe, byte for byte. */
function piped(args: string[]): Promise<string> {
  const child = spawn(process.execPath, [BIN, ...args], { env: binEnv(recording.env), stdio: ['ignore', 'pipe', 'ignore'] });
  const chunks: Buffer[] = [];
  child.stdout.on('data', (c: Buffer) => chunks.push(c));
  return new Promise((resolve) => child.on('close', () => resolve(Buffer.concat(chunks).toString('utf8'))));
}

const CASES: Array<[what: string, args: string[], terminal: string, pipe: string]> = [
  ['-o csv', ['link', 'list', '-o', 'csv', '--fields', 'id,comment'], `id,comment\n417863,${SHOWN}\n`, `id,comment\n417863,${HOSTILE}\n`],
  ['-o tsv', ['link', 'list', '-o', 'tsv', '--fields', 'id,comment'], `id\tcomment\n417863\t${SHOWN}\n`, `id\tcomment\n417863\t${HOSTILE}\n`],
  ['--jq strings', ['link', 'list', '--jq', '.[].comment'], `${SHOWN}\n`, `${HOSTILE}\n`],
  ['-q', ['link', 'get', '417863', '-q'], `${SHORT_SHOWN}\n`, `${SHORT}\n`],
  ['-q of a list', ['message', 'status', '123456', '-q'], `${SHORT_SHOWN}\n`, `${SHORT}\n`],
];

describe('text from the service at a terminal and in a pipe', () => {
  it.each(CASES)('%s: escaped at a terminal, byte for byte in a pipe', async (_what, args, terminal, pipe) => {
    hostileAnswers();
    const tty = await runInPty(args, { columns: 200, env: recording.env });
    expect(tty.code).toBe(0);
    expect(tty.output).not.toMatch(RAW);
    expect(screenText(tty.output)).toBe(terminal);
    expect(await piped(args)).toBe(pipe);
  });

  it('a table and --jq of a whole object at a terminal show the same escapes', async () => {
    hostileAnswers();
    const table = await runInPty(['link', 'get', '417863', '--no-color'], { columns: 200, env: recording.env });
    expect(table.output).not.toMatch(RAW);
    expect(screenText(table.output).split('\n')).toContainEqual(expect.stringMatching(/^comment +hi\\x1b\]0;pwned\\x07 /));
    expect(screenText(table.output)).toContain(SHOWN);
    const object = await runInPty(['link', 'get', '417863', '--jq', '{comment}'], { columns: 200, env: recording.env });
    expect(object.output).not.toMatch(RAW);
    // jq writes ESC and BEL as JSON escapes itself; the 8-bit CSI and the override are escaped here.
    expect(screenText(object.output)).toContain('"comment": "hi\\u001b]0;pwned\\u0007 \\u001b]52;c;cm0gLXJmIH4=\\u0007 \\u001b[2J\\x9b31m \\u202eevil"');
  });
});
