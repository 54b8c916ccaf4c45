#!/usr/bin/env node
// The only file that touches `process`: argv, env, stdio, signals, exit code. CommonJS
// (bin/package.json), like the bundled CLI it runs (scripts/bundle.mjs): no ES module loader starts.

const argv = process.argv.slice(2);

// `--version` is answered before the CLI loads, with writeSync: process.stdout would first set up a
// stream (remeasure: `npm run bench -- --only version` with and without both).
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  const { readFileSync, writeSync } = require('node:fs');
  const text = `${JSON.parse(readFileSync(`${__dirname}/../package.json`, 'utf8')).version}\n`;
  try {
    writeSync(1, text);
  } catch (err) {
    if (err.code === 'EAGAIN') process.stdout.write(text); // a non-blocking pipe that is full
    // A reader already gone (`smslink --version | true`) is told nothing, as by every command (src/cli/run.ts).
    else if (err.code !== 'EPIPE') throw err;
  }
} else main();

/**
 * Whether a descriptor (its fstat) is a file or /dev/null, which a write
 * never holds for long: no pipe (its reader may stop reading), no terminal.
 * /dev/null is a character device, as a terminal is: told apart without
 * node:tty, which loads node:net.
 */
function fileOrDevNull(stat) {
  if (!stat?.isCharacterDevice()) return stat?.isFile() === true;
  try {
    const devNull = require('node:fs').statSync('/dev/null');
    return devNull.dev === stat.dev && devNull.ino === stat.ino;
  } catch {
    return false; // no /dev/null to compare with: process.stdout says how
  }
}

async function main() {
  const interrupt = new AbortController();
  // A second Ctrl-C: a run that can give up what is in flight and still print its summary (bulk) listens here.
  const stopNow = new AbortController();
  let interruptedAt = 0, paging = false;
  const onSignal = () => {
    if (paging) return; // the pager has the terminal: Ctrl-C is the pager's
    if (!interruptedAt) {
      interruptedAt = Date.now();
      return interrupt.abort();
    }
    // One within 0.3 s of the first is the same interrupt delivered twice (timeout(1) signals the process, then its group).
    if (Date.now() - interruptedAt <= 300) return;
    if (stopNow.signal.aborted || require('node:events').getEventListeners(stopNow.signal, 'abort').length === 0) process.exit(130);
    stopNow.abort();
    // The run returns at once with its summary; should it not, exit anyway.
    setTimeout(() => process.exit(130), 800).unref();
  };
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, onSignal);
  require('./compile-cache.js').enableCompileCache(process.env, `${__dirname}/../dist/bundle`, argv);
  const { run, redact } = require('../dist/bundle/run.cjs');
  // A crash must not print the key either (an error can carry the URL).
  const crash = (err) => {
    process.stderr.write(`smslink crashed (please report this): ${redact(err?.stack ?? String(err))}\n`);
    process.exit(1);
  };
  process.on('uncaughtException', crash);
  process.on('unhandledRejection', crash);
  // A reader that goes away (`smslink link list | head`) is not a crash: stop like Ctrl-C would,
  // quietly; bulk runs then finish what is in flight and keep their journal right. run() ends such
  // a command 0 (it printed what the reader wanted), a bulk run 141 (it did not finish).
  let stdoutClosed = false;
  const onStdoutClosed = () => {
    if (stdoutClosed) return;
    stdoutClosed = true;
    if (interrupt.signal.aborted) return;
    interruptedAt = Date.now();
    interrupt.abort('stdout-closed');
  };
  // Into a file or /dev/null, output is written with fs.writeSync, as Node's process.stdout writes there
  // too, but without the stream it sets up first, which loads node:stream (remeasure: `npm run bench --
  // --timer instructions --only help`). A pipe gets process.stdout: a write into a pipe whose reader
  // stopped reading must not hold the event loop (serve's request log, Ctrl-C and SIGTERM).
  const fs = require('node:fs');
  let stdoutStat; // none when stdout is closed (`>&-`): process.stdout says how
  try {
    stdoutStat = fs.fstatSync(1);
  } catch { /* closed */ }
  let stream;
  const openStdout = () => {
    if (!stream) {
      stream = process.stdout;
      stream.on('error', (err) => (err.code === 'EPIPE' ? onStdoutClosed() : crash(err)));
    }
    return stream;
  };
  const direct = fileOrDevNull(stdoutStat);
  const writeDirect = (chunk) => {
    const data = Buffer.from(chunk);
    try {
      for (let done = 0; done < data.length; ) done += fs.writeSync(1, data, done);
    } catch (err) {
      crash(err); // a full disk, say: as the stream's error
    }
    return true;
  };
  // A reader of stderr that went away (`2>&1 | head -1`) is nobody left to tell: what the run
  // would say there is dropped, and it ends with its own exit code, not as a crash.
  let stderrOpened = false;
  const openStderr = () => {
    if (!stderrOpened) {
      stderrOpened = true;
      process.stderr.on('error', (err) => (err.code === 'EPIPE' || err.code === 'ERR_STREAM_DESTROYED' ? undefined : crash(err)));
    }
    return process.stderr;
  };
  const stdout = {
    get isTTY() { return direct ? false : openStdout().isTTY; },
    get columns() { return direct ? undefined : openStdout().columns; },
    get rows() { return direct ? undefined : openStdout().rows; },
    write: (chunk) => {
      if (stdoutClosed) return true;
      if (direct) return writeDirect(chunk);
      const ok = openStdout().write(chunk);
      // A write into a pipe whose reader is gone fails at once: stop before another request starts, not a turn later.
      if (stream.errored?.code === 'EPIPE') onStdoutClosed();
      return ok;
    },
    // After a write returned false (a pipe whose reader is behind): resolves once it has caught up, or once
    // nobody will (the reader gone, Ctrl-C). A long list waits here instead of piling up in memory.
    drained: () =>
      new Promise((resolve) => {
        if (stdoutClosed || interrupt.signal.aborted || !stream?.writableNeedDrain) return resolve();
        const done = () => {
          stream.off('drain', done).off('close', done).off('error', done);
          interrupt.signal.removeEventListener('abort', done);
          resolve();
        };
        stream.on('drain', done).on('close', done).on('error', done);
        interrupt.signal.addEventListener('abort', done);
      }),
  };
  const code = await run(argv, {
    stdout,
    // Set up when first used: most commands never read stdin, and many write nothing on stderr, whose
    // stream loads node:net when it is a pipe, as in CI (remeasure: `npm run bench -- --only help`).
    get stderr() { return openStderr(); },
    get stdin() { return process.stdin; },
    env: process.env,
    signal: interrupt.signal,
    onPager: (running) => (paging = running),
    stopNow: stopNow.signal,
    get stdoutIsPipe() { return stdoutStat !== undefined && (stdoutStat.isFIFO() || stdoutStat.isSocket()); },
  });
  process.exitCode = code;
  // Keep-alive sockets and timers are closed by run(); exit promptly regardless.
  if (stdoutClosed || !stream) process.exit(code);
  else stream.write('', () => process.exit(code));
}
