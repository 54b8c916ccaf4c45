// Keeps V8's compiled code of the bundle (dist/bundle/*.cjs) between runs, so
// that a command does not parse and compile ~700 KB of JavaScript every time
// it starts: about a third of the start-up of `smslink link get`.
//
// Node 22.1+ does this itself (module.enableCompileCache). On Node 20 the
// bundle's files are compiled here with vm.Script and V8's cachedData, which
// is what Node's own cache and v8-compile-cache do: the first run compiles
// and, at exit, saves the code of every function it ran; later runs start
// from that. V8 rejects data from another V8 version or other flags, and the
// key below (file size, modification time and inode) rejects data of an older build;
// a rejected, stale or unreadable entry is compiled from source and saved
// again. A cache is never worth an error: every failure falls back to the
// plain loader or skips the save.
//
// The cache lives in the user's cache folder, as env-paths names it
// (~/.cache/smslink on Linux), or in SMSLINK_CACHE_DIR. Node's own switch,
// NODE_DISABLE_COMPILE_CACHE=1, turns it off.

const fs = require('node:fs');
const path = require('node:path');
const Module = require('node:module');

function cacheRoot(env) {
  if (env.SMSLINK_CACHE_DIR) return env.SMSLINK_CACHE_DIR;
  const home = require('node:os').homedir();
  if (process.platform === 'darwin') return path.join(home, 'Library', 'Caches', 'smslink');
  if (process.platform === 'win32') return path.join(env.LOCALAPPDATA || path.join(home, 'AppData', 'Local'), 'smslink', 'Cache');
  return path.join(env.XDG_CACHE_HOME || path.join(home, '.cache'), 'smslink');
}

/** Caches the compiled code of the CommonJS files under `bundleDir`. */
function enableCompileCache(env, bundleDir) {
  if (env.NODE_DISABLE_COMPILE_CACHE) return;
  const dir = path.join(cacheRoot(env), 'v8', `${process.version}-${process.arch}`);
  if (Module.enableCompileCache) {
    Module.enableCompileCache(dir);
    return;
  }
  const vm = require('node:vm');
  const prefix = `${path.resolve(bundleDir)}${path.sep}`;
  const unsaved = [];
  const compile = Module.prototype._compile;
  Module.prototype._compile = function (content, filename) {
    if (!filename.startsWith(prefix)) return compile.call(this, content, filename);
    const entry = path.join(dir, `${filename.slice(prefix.length).replace(/[\\/]/g, '-')}.cache`);
    let key;
    let cachedData;
    try {
      const stat = fs.statSync(filename);
      key = `${stat.size}-${stat.mtimeMs}-${stat.ino}\n`;
      const data = fs.readFileSync(entry);
      if (data.toString('latin1', 0, key.length) === key) cachedData = data.subarray(key.length);
    } catch {
      // no entry yet
    }
    let script;
    try {
      script = new vm.Script(Module.wrap(content), { filename, cachedData });
    } catch {
      return compile.call(this, content, filename); // let the real loader report a syntax error
    }
    if (key && (!cachedData || script.cachedDataRejected)) unsaved.push({ script, entry, key });
    const require = Module.createRequire(filename);
    return script.runInThisContext().call(this.exports, this.exports, require, this, filename, path.dirname(filename));
  };
  process.on('exit', () => {
    if (unsaved.length === 0) return;
    try {
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      for (const { script, entry, key } of unsaved) {
        // Written whole, then renamed: a run starting meanwhile reads the old entry or none.
        const tmp = `${entry}.${process.pid}.tmp`;
        fs.writeFileSync(tmp, Buffer.concat([Buffer.from(key, 'latin1'), script.createCachedData()]), { mode: 0o600 });
        fs.renameSync(tmp, entry);
      }
    } catch {
      // read-only or full disk: run without a cache
    }
  });
}

module.exports = { enableCompileCache };
