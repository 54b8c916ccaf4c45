// Keeps V8's compiled code of the bundle between runs, on every Node: one vm.Script
// cachedData entry per bundle file and command, saved at exit with the code that ran
// (Node 22's module.enableCompileCache saves only what was compiled before: see
// docs/performance.md). An entry another user could write is never read or
// written, and the run goes on without the cache (docs/security.md, "Files").

const fs = require('node:fs');
const path = require('node:path');
const Module = module.constructor; // require('node:module')'s export, without loading that module
/** After an entry's stamp: written by a run that failed, to be written again by one that succeeds. */
const PARTIAL = ' partial';
const NOFOLLOW = fs.constants.O_NOFOLLOW || 0;

/**
 * Whether a file or directory (its lstat, or the fstat of what was opened)
 * is the user's alone: no link, the user's own, not writable by others. As
 * src/private-files.ts judges, which this CommonJS file cannot import.
 */
function own(stat) {
  if (stat.isSymbolicLink()) return false;
  return !process.getuid || (stat.uid === process.getuid() && (stat.mode & 0o022) === 0);
}

/**
 * Whether the cache's directory (when it exists) is the user's alone, and
 * whether the nearest directory above it that exists keeps what it holds:
 * the user's or root's, and not writable by others unless sticky (as /tmp).
 * Else another user could plant code in it, or the directory itself.
 */
function trusted(dir) {
  const stat = fs.lstatSync(dir, { throwIfNoEntry: false });
  if (stat && (!stat.isDirectory() || !own(stat))) return false;
  let above = path.dirname(dir);
  let up;
  while (!(up = fs.statSync(above, { throwIfNoEntry: false })) && path.dirname(above) !== above) above = path.dirname(above);
  if (!up || !process.getuid) return true;
  return (up.uid === process.getuid() || up.uid === 0) && ((up.mode & 0o022) === 0 || (up.mode & 0o1000) !== 0);
}

/**
 * The command's first two words (`link get`), or its options alone, hashed
 * (FNV-1a): nothing a user typed is written to disk. A command's help has
 * an entry of its own: `link get --help` runs none of link get's code, and
 * an entry it wrote would serve every later `link get`, which would compile its own code each time.
 */
function commandOf(argv) {
  const options = argv.includes('--') ? argv.slice(0, argv.indexOf('--')) : argv;
  const words = options.filter((a) => /^[a-z][a-z-]*$/.test(a)).slice(0, 2);
  const help = options.some((a) => a === '--help' || /^-[a-zA-Z]*h[a-zA-Z]*$/.test(a));
  const what = words.length ? `${words.join(' ')}${help ? ' --help' : ''}` : options.filter((a) => /^-[\w-]+$/.test(a)).join(' ');
  let h = 0x811c9dc5;
  for (let i = 0; i < what.length; i++) h = Math.imul(h ^ what.charCodeAt(i), 16777619);
  return (h >>> 0).toString(36);
}

exports.enableCompileCache = function enableCompileCache(env, bundleDir, argv) {
  if (env.NODE_DISABLE_COMPILE_CACHE) return;
  const dir = path.join(env.SMSLINK_CACHE_DIR || path.join(env.XDG_CACHE_HOME || path.join(require('node:os').homedir(), '.cache'), 'smslink'), 'v8');
  if (!trusted(dir)) return;
  const vm = require('node:vm');
  const prefix = `${path.resolve(bundleDir)}${path.sep}`;
  const command = commandOf(argv);
  const unsaved = [];
  const compile = Module.prototype._compile;
  // Node 22 passes a third argument (the module's format): handed on as it came.
  Module.prototype._compile = function (content, filename, ...more) {
    if (!filename.startsWith(prefix)) return compile.call(this, content, filename, ...more);
    const entry = path.join(dir, `${process.version}-${process.arch}-${filename.slice(prefix.length).replace(/[\\/]/g, '-')}-${command}`);
    let stamp, cachedData, partial = false, fd;
    try {
      // Size, time and inode refuse an entry of another build; V8 refuses one of another version or flags.
      const stat = fs.statSync(filename);
      stamp = `${stat.size}-${stat.mtimeMs}-${stat.ino}`;
      // Checked as opened, not before: nothing can be swapped in between.
      fd = fs.openSync(entry, fs.constants.O_RDONLY | NOFOLLOW);
      const held = fs.fstatSync(fd);
      if (!held.isFile() || !own(held)) throw new Error('not the user\'s alone');
      const data = Buffer.allocUnsafe(held.size);
      fs.readSync(fd, data, 0, held.size, 0);
      const head = data.toString('latin1', 0, stamp.length + PARTIAL.length + 1);
      if (head.startsWith(`${stamp}\n`)) cachedData = data.subarray(stamp.length + 1);
      else if (head === `${stamp}${PARTIAL}\n`) [cachedData, partial] = [data.subarray(head.length), true];
    } catch { /* no entry yet, or not one to run */ } finally { if (fd !== undefined) fs.closeSync(fd); }
    let script;
    try {
      script = new vm.Script(Module.wrap(content), { filename, cachedData });
    } catch {
      return compile.call(this, content, filename, ...more); // the real loader reports a syntax error
    }
    if (stamp && (!cachedData || script.cachedDataRejected || partial)) unsaved.push({ script, entry, stamp, replacing: partial && !script.cachedDataRejected });
    return script.runInThisContext().call(this.exports, this.exports, Module.createRequire(filename), this, filename, path.dirname(filename));
  };
  process.on('exit', (code) => {
    // An entry holds the code that ran in the run that wrote it. One written by a run that failed (a usage
    // error, before its command ran) is marked partial, and the first run that succeeds writes it again:
    // kept, it would have every later run compile that code again (a first `link get` without its argument
    // would slow every later `link get`). A command that always fails still has its partial entry.
    const whole = code === 0;
    try {
      if (!unsaved.length) return;
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      if (!trusted(dir)) return; // made by another user since this run began
      // Written whole, then renamed: a run starting meanwhile reads the old entry or none.
      for (const { script, entry, stamp, replacing } of unsaved) {
        if (replacing && !whole) continue;
        const head = Buffer.from(`${stamp}${whole ? '' : PARTIAL}\n`, 'latin1');
        const temp = `${entry}.${process.pid}`;
        try { fs.unlinkSync(temp); } catch { /* none left by a killed run of the same pid */ }
        const fd = fs.openSync(temp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | NOFOLLOW, 0o600);
        try {
          fs.writeSync(fd, Buffer.concat([head, script.createCachedData()]));
        } finally {
          fs.closeSync(fd);
        }
        fs.renameSync(temp, entry);
      }
    } catch { /* read-only or full disk: run without a cache */ }
  });
};
