#!/usr/bin/env node
// The only file that touches `process`: argv, env, stdio, signals, exit code.
import { readFileSync } from 'node:fs';

const argv = process.argv.slice(2);

// `--version` is answered before anything else loads: scripts call it often.
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(`${pkg.version}\n`);
} else {
  const interrupt = new AbortController();
  let interrupted = false;
  const onSignal = () => {
    if (interrupted) process.exit(130); // second Ctrl-C: stop now
    interrupted = true;
    interrupt.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const { run, redact } = await import('../dist/cli/run.js');
  // A crash must not print the key either (undici errors can carry the URL).
  const crash = (err) => {
    const text = err instanceof Error ? (err.stack ?? err.message) : String(err);
    process.stderr.write(`smslink crashed (please report this): ${redact(text)}\n`);
    process.exit(1);
  };
  process.on('uncaughtException', crash);
  process.on('unhandledRejection', crash);
  // A reader that goes away (`smslink link list | head`) is not a crash: stop like Ctrl-C would,
  // quietly; bulk runs then finish what is in flight and keep their journal right.
  let stdoutClosed = false;
  process.stdout.on('error', (err) => {
    if (err.code !== 'EPIPE') return crash(err);
    stdoutClosed = true;
    if (!interrupt.signal.aborted) interrupt.abort('stdout-closed');
  });
  const stdout = {
    get isTTY() {
      return process.stdout.isTTY;
    },
    get columns() {
      return process.stdout.columns;
    },
    write: (chunk) => (stdoutClosed ? true : process.stdout.write(chunk)),
  };
  const code = await run(argv, {
    stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    signal: interrupt.signal,
  });
  process.exitCode = code;
  // Keep-alive sockets and timers are closed by run(); exit promptly regardless.
  if (stdoutClosed) process.exit(code);
  else process.stdout.write('', () => process.exit(code));
}
