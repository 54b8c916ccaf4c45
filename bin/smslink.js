#!/usr/bin/env node
// The only file that touches `process`: argv, env, stdio, signals, exit code.
// CommonJS (bin/package.json), like the bundled CLI it runs (dist/bundle, see
// scripts/bundle.mjs): Node's ES module loader would cost every start ~8 ms.

const argv = process.argv.slice(2);

// `--version` is answered before anything else loads: scripts call it often.
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  const { readFileSync, writeSync } = require('node:fs');
  const text = `${JSON.parse(readFileSync(`${__dirname}/../package.json`, 'utf8')).version}\n`;
  try {
    writeSync(1, text); // process.stdout on a pipe would first set up a socket stream
  } catch (err) {
    if (err.code !== 'EAGAIN') throw err;
    process.stdout.write(text);
  }
} else {
  main();
}

async function main() {
  const interrupt = createInterrupt();
  // A second Ctrl-C: a run that can give up what is in flight and still print its summary (bulk) listens here.
  const stopNow = createInterrupt();
  let interruptedAt = 0;
  let paging = false;
  const onSignal = () => {
    if (paging) return; // the pager has the terminal: Ctrl-C is the pager's
    if (!interruptedAt) {
      interruptedAt = Date.now();
      interrupt.abort();
      return;
    }
    // One within 0.3 s of the first is the same interrupt delivered twice (timeout(1) signals the process, then its group).
    if (Date.now() - interruptedAt <= 300) return;
    if (stopNow.signal.aborted || !stopNow.listening()) process.exit(130);
    stopNow.abort();
    // The run returns at once with its summary; should it not, exit anyway.
    setTimeout(() => process.exit(130), 800).unref();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // V8's compiled code of the bundle is kept between runs (bin/compile-cache.js).
  require('./compile-cache.js').enableCompileCache(process.env, `${__dirname}/../dist/bundle`, argv);
  const { run, redact } = require('../dist/bundle/run.cjs');
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
  const onStdoutClosed = () => {
    if (stdoutClosed) return;
    stdoutClosed = true;
    if (interrupt.signal.aborted) return;
    interruptedAt = Date.now();
    interrupt.abort('stdout-closed');
  };
  process.stdout.on('error', (err) => (err.code === 'EPIPE' ? onStdoutClosed() : crash(err)));
  const stdout = {
    get isTTY() {
      return process.stdout.isTTY;
    },
    get columns() {
      return process.stdout.columns;
    },
    get rows() {
      return process.stdout.rows;
    },
    write: (chunk) => {
      if (stdoutClosed) return true;
      const ok = process.stdout.write(chunk);
      // A write into a pipe whose reader is gone fails at once: stop before another request starts, not a turn later.
      if (process.stdout.errored?.code === 'EPIPE') onStdoutClosed();
      return ok;
    },
  };
  const code = await run(argv, {
    stdout,
    stderr: process.stderr,
    // Setting up stdin takes a few milliseconds; most commands never read it.
    get stdin() {
      return process.stdin;
    },
    env: process.env,
    signal: interrupt.signal,
    onPager: (running) => {
      paging = running;
    },
    stopNow: stopNow.signal,
    get stdoutIsPipe() {
      const stat = require('node:fs').fstatSync(1);
      return stat.isFIFO() || stat.isSocket();
    },
  });
  process.exitCode = code;
  // Keep-alive sockets and timers are closed by run(); exit promptly regardless.
  if (stdoutClosed) process.exit(code);
  else process.stdout.write('', () => process.exit(code));
}

/**
 * The run's interrupt: an AbortController as far as the CLI and the Node APIs
 * it hands the signal to (timers/promises) use one: the signal's `aborted` and
 * `reason`, and its 'abort' listeners, each called once, in order, when it
 * aborts (a listener's error is uncaught, as with EventTarget). Node's own
 * cost every command ~0.8 ms (its module, and EventTarget's listener code
 * compiled on first use) for a Ctrl-C that rarely comes.
 */
function createInterrupt() {
  let listeners = [];
  const signal = {
    aborted: false,
    reason: undefined,
    addEventListener(type, listener) {
      if (type === 'abort' && !signal.aborted && listener && !listeners.includes(listener)) listeners.push(listener);
    },
    removeEventListener(type, listener) {
      if (type === 'abort') listeners = listeners.filter((l) => l !== listener);
    },
    throwIfAborted() {
      if (signal.aborted) throw signal.reason;
    },
  };
  const abort = (reason = new DOMException('This operation was aborted', 'AbortError')) => {
    if (signal.aborted) return;
    signal.aborted = true;
    signal.reason = reason;
    const called = listeners;
    listeners = [];
    const event = { type: 'abort', target: signal };
    for (const listener of called) {
      try {
        if (typeof listener === 'function') listener.call(signal, event);
        else listener.handleEvent(event);
      } catch (err) {
        process.nextTick(() => {
          throw err;
        });
      }
    }
  };
  return { signal, abort, listening: () => listeners.length > 0 };
}
