// Keeps V8's compiled code of the bundle (dist/bundle/*.cjs) between runs, so
// that a command does not parse and compile ~500 KB of JavaScript every time
// it starts: about a third of the start-up of `smslink link get`.
//
// The bundle's files are compiled with vm.Script and V8's cachedData, as
// v8-compile-cache and Node's own compile cache (Node 22+) do, with one
// difference that matters for a CLI: V8 saves the code of the functions that
// have run, so a cache saved by `smslink --help` lacks what `link get` runs.
// Each entry therefore lists the commands it has seen, and a run of a new
// command saves it again at exit: the code loaded from the entry plus the
// code this run compiled. After a few commands it stops changing.
//
// V8 rejects data of another V8 version or other flags, and the key below
// (file size, modification time and inode) rejects data of an older build;
// a rejected, stale or unreadable entry is compiled from source and saved
// again. A cache is never worth an error: every failure falls back to the
// plain loader or skips the save.
//
// The cache lives in the user's cache folder, as env-paths names it
// (~/.cache/smslink on Linux), or in SMSLINK_CACHE_DIR. Node's own switch,
// NODE_DISABLE_COMPILE_CACHE=1, turns it off.

const fs = require('node:fs');
const path = require('node:path');
// The loader's Module class, as require('node:module') exports it; that public module would load
// the ES module loader and source map support with it (~0.55 ms of every command).
const Module = module.constructor;

function cacheRoot(env) {
  if (env.SMSLINK_CACHE_DIR) return env.SMSLINK_CACHE_DIR;
  const home = require('node:os').homedir();
  if (process.platform === 'darwin') return path.join(home, 'Library', 'Caches', 'smslink');
  if (process.platform === 'win32') return path.join(env.LOCALAPPDATA || path.join(home, 'AppData', 'Local'), 'smslink', 'Cache');
  return path.join(env.XDG_CACHE_HOME || path.join(home, '.cache'), 'smslink');
}

/** The commands an entry remembers; a cache that has seen this many stops growing. */
const MAX_COMMANDS = 32;

/**
 * What a run does, for the cache: its first two words (`link get`), or its
 * options alone (`--help`), hashed, so that no value a user typed (a key
 * given before the command, say) is ever written to disk: 53 bits of a
 * 20-character key tell nothing about it.
 */
function commandOf(argv) {
  const words = argv.filter((a) => /^[a-z][a-z-]*$/.test(a)).slice(0, 2);
  const what = words.length ? words.join(' ') : argv.filter((a) => /^-[\w-]+$/.test(a)).join(' ');
  // cyrb53, a 53-bit non-cryptographic hash (node:crypto would load ~15 modules for this).
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < what.length; i++) {
    const c = what.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
}

/** An entry: the build key, the commands seen (JSON), then V8's data. */
function readEntry(entry, key) {
  const data = fs.readFileSync(entry);
  if (data.toString('latin1', 0, key.length) !== key) return undefined;
  const end = data.indexOf(10, key.length);
  const commands = JSON.parse(data.toString('utf8', key.length, end));
  return Array.isArray(commands) ? { commands, cachedData: data.subarray(end + 1) } : undefined;
}

/** Caches the compiled code of the CommonJS files under `bundleDir` for the command in `argv`. */
function enableCompileCache(env, bundleDir, argv) {
  if (env.NODE_DISABLE_COMPILE_CACHE) return;
  const dir = path.join(cacheRoot(env), 'v8', `${process.version}-${process.arch}`);
  const command = commandOf(argv);
  const vm = require('node:vm');
  const prefix = `${path.resolve(bundleDir)}${path.sep}`;
  const unsaved = [];
  const compile = Module.prototype._compile;
  Module.prototype._compile = function (content, filename) {
    if (!filename.startsWith(prefix)) return compile.call(this, content, filename);
    const entry = path.join(dir, `${filename.slice(prefix.length).replace(/[\\/]/g, '-')}.cache`);
    let key;
    let cached;
    try {
      const stat = fs.statSync(filename);
      key = `${stat.size}-${stat.mtimeMs}-${stat.ino}\n`;
      cached = readEntry(entry, key);
    } catch {
      // no entry yet, or a damaged one
    }
    let script;
    try {
      script = new vm.Script(Module.wrap(content), { filename, cachedData: cached?.cachedData });
    } catch {
      return compile.call(this, content, filename); // let the real loader report a syntax error
    }
    // Saved at exit unless the entry was used and has seen this command (a file that cannot be keyed never is).
    const seen = cached && !script.cachedDataRejected ? cached.commands : [];
    if (key && !seen.includes(command) && seen.length < MAX_COMMANDS) unsaved.push({ script, entry, key, commands: [...seen, command] });
    const require = Module.createRequire(filename);
    return script.runInThisContext().call(this.exports, this.exports, require, this, filename, path.dirname(filename));
  };
  process.on('exit', () => {
    if (unsaved.length === 0) return;
    try {
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      for (const { script, entry, key, commands } of unsaved) {
        // Written whole, then renamed: a run starting meanwhile reads the old entry or none.
        const tmp = `${entry}.${process.pid}.tmp`;
        fs.writeFileSync(tmp, Buffer.concat([Buffer.from(`${key}${JSON.stringify(commands)}\n`, 'utf8'), script.createCachedData()]), { mode: 0o600 });
        fs.renameSync(tmp, entry);
      }
    } catch {
      // read-only or full disk: run without a cache
    }
  });
}

module.exports = { enableCompileCache };
