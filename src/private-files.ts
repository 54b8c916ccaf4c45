// Files that hold keys or personal data are the user's alone: created 0600 in
// directories that are 0700, never read or written through a symlink, and an
// existing one that another user owns, or that others may write, is refused
// with a message naming the path and the fix (docs/security.md, "Files").

import { chmodSync, closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeSync, type Stats } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { EXIT, ExitError } from './exit-codes.js';
import { shellWord } from './output/text.js';

/** A file or directory smslink will not trust: the message names it and says what to do. Exit 4, as any configuration smslink cannot use. */
export class PrivateFileError extends ExitError {
  override name = 'PrivateFileError';
  constructor(
    readonly path: string,
    why: string,
    fix: string,
  ) {
    super(`${path} ${why}; ${fix}`, EXIT.CONFIG);
  }
}

/** Windows has no owners and modes to compare: there, only links and types are checked. */
const POSIX = process.platform !== 'win32';
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
/** Opening a FIFO planted in a file's place must not wait for a writer: it is refused as not a file instead. */
const NONBLOCK = constants.O_NONBLOCK ?? 0;

const octal = (mode: number) => (mode & 0o7777).toString(8).padStart(4, '0');

/** Why an existing file or directory (its lstat, or the fstat of what was opened) is not the user's alone, or undefined when it is. */
function problem(path: string, st: Stats, kind: 'file' | 'directory'): PrivateFileError | undefined {
  if (st.isSymbolicLink()) return linkError(path, kind);
  if (kind === 'directory' ? !st.isDirectory() : !st.isFile()) return new PrivateFileError(path, `is not a ${kind}`, 'move it out of the way');
  if (!POSIX) return undefined;
  if (st.uid !== process.getuid!()) {
    return new PrivateFileError(path, `belongs to another user (uid ${st.uid})`, `smslink uses only ${kind === 'file' ? 'files' : 'directories'} of your own: move it out of the way, or point smslink elsewhere`);
  }
  if ((st.mode & 0o022) !== 0) {
    return new PrivateFileError(path, `may be written by other users (mode ${octal(st.mode)})`, `make it yours alone: chmod ${kind === 'directory' ? '700' : '600'} ${shellWord(path)}`);
  }
  return undefined;
}

function linkError(path: string, kind: 'file' | 'directory'): PrivateFileError {
  return new PrivateFileError(path, 'is a symbolic link', `smslink does not follow links to its own files: remove the link, or put the real ${kind} in its place`);
}

/**
 * Whether others could rename or replace what `dir` holds (`entry`): it is
 * another user's (root's excepted), or others may write it without the
 * sticky bit (as /tmp has it).
 */
function replaceableIn(dir: string, entry: string): PrivateFileError | undefined {
  if (!POSIX) return undefined;
  let st;
  try {
    st = statSync(dir);
  } catch {
    return undefined;
  }
  if (st.uid !== process.getuid!() && st.uid !== 0) {
    return new PrivateFileError(dir, `belongs to another user (uid ${st.uid}), who could replace ${entry} in it`, 'point smslink at a directory of your own');
  }
  if ((st.mode & 0o022) !== 0 && (st.mode & 0o1000) === 0) {
    return new PrivateFileError(dir, `may be written by other users (mode ${octal(st.mode)}), who could replace ${entry} in it`, `chmod go-w ${shellWord(dir)}, or point smslink at a directory of your own`);
  }
  return undefined;
}

/**
 * Makes the directory (0700) and its parents as needed. An existing one
 * must be the user's alone, and so must the directory it is in (or, for a
 * new one, the directory it is made in): else another user could swap it.
 */
export function privateDir(dir: string): void {
  const st = lstatSync(dir, { throwIfNoEntry: false });
  if (st) {
    const trouble = problem(dir, st, 'directory') ?? replaceableIn(dirname(dir), dir);
    if (trouble) throw trouble;
    return;
  }
  // The first directory to make: the one it goes in must keep it, and be one (not a link to nothing).
  const levels = [dir];
  while (dirname(levels[0]) !== levels[0] && !lstatSync(dirname(levels[0]), { throwIfNoEntry: false })) levels.unshift(dirname(levels[0]));
  const parent = dirname(levels[0]);
  const held = statSync(parent, { throwIfNoEntry: false });
  if (!held?.isDirectory()) throw new PrivateFileError(parent, held ? 'is not a directory' : 'is a symbolic link that leads nowhere', `${dir} cannot be made in it: point smslink at a directory of your own`);
  const trouble = replaceableIn(parent, levels[0]);
  if (trouble) throw trouble;
  // One level at a time: Node's recursive mkdir never returns where a level cannot be made (under /proc).
  for (const level of levels) {
    try {
      mkdirSync(level, { mode: 0o700 });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') continue; // made meanwhile by another run
      throw new PrivateFileError(level, `cannot be made (${code})`, 'point smslink at a directory of your own');
    }
  }
}

/** An existing file that is not the user's alone is refused (PrivateFileError); a missing one is fine. For files another library opens by their path, in a directory privateDir() checked. */
export function checkPrivateFile(path: string): void {
  let st;
  try {
    st = lstatSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  const trouble = problem(path, st, 'file');
  if (trouble) throw trouble;
}

/** Opens without following a link, then checks what was opened (so nothing can be swapped in between); returns it open. */
function openChecked(path: string, flags: number): { fd: number; st: Stats } {
  let fd: number;
  try {
    fd = openSync(path, flags | NOFOLLOW | NONBLOCK, 0o600);
  } catch (err) {
    // O_NOFOLLOW on a link: ELOOP (Linux, macOS), EMLINK (FreeBSD).
    const code = (err as NodeJS.ErrnoException).code;
    if ((code === 'ELOOP' || code === 'EMLINK') && lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink()) throw linkError(path, 'file');
    throw err;
  }
  try {
    const st = fstatSync(fd);
    // A folder or a FIFO where a file belongs is a file that cannot be read: said as any such (words.ts fileProblem).
    if (!st.isFile()) throw Object.assign(new Error(`${path} is not a regular file`), { code: st.isDirectory() ? 'EISDIR' : 'ENOTFILE' });
    const trouble = problem(path, st, 'file');
    if (trouble) throw trouble;
    return { fd, st };
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}

/**
 * Opens a file that is the user's alone (`flags`: O_RDWR | O_APPEND |
 * O_CREAT, say; created 0600): a link, another user's file or one others
 * may write is refused. Returns the descriptor: read and write through it,
 * not the path again.
 */
export function openPrivateFile(path: string, flags: number): number {
  return openChecked(path, flags).fd;
}

/**
 * The file's text, or undefined when it does not exist; refused when it is
 * not the user's alone. `secret` (what the file holds: "your API key") also
 * refuses a file others can read.
 */
export function readPrivateFile(path: string, { secret }: { secret?: string } = {}): string | undefined {
  let opened;
  try {
    opened = openChecked(path, constants.O_RDONLY);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  try {
    if (secret && POSIX && (opened.st.mode & 0o077) !== 0) {
      throw new PrivateFileError(path, `can be read by other users (mode ${octal(opened.st.mode)}), and it holds ${secret}`, `make it yours alone: chmod 600 ${shellWord(path)}`);
    }
    return readFileSync(opened.fd, 'utf8');
  } finally {
    closeSync(opened.fd);
  }
}

/**
 * Writes the file whole (0600) in its directory: a new file beside it,
 * opened so that it cannot be a link or another's file, then renamed over
 * the old one, which must be the user's alone. A reader sees the old text or
 * the new, never half of either.
 */
export function writePrivateFile(path: string, text: string): void {
  checkPrivateFile(path);
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${Date.now()}.tmp`);
  const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, 0o600);
  try {
    writeSync(fd, text);
    // The mode asked for is masked by the umask only downwards; a file made by this process is already 0600 or less.
    if (POSIX && (fstatSync(fd).mode & 0o077) !== 0) throw new PrivateFileError(temp, 'was created readable by others', 'keep this file on a file system with Unix permissions');
  } catch (err) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw err;
  }
  closeSync(fd);
  renameSync(temp, path);
}

/** The files SQLite keeps beside a database while it writes: its write-ahead log, shared memory and rollback journal. */
const SQLITE_FILES = ['-wal', '-shm', '-journal'];

/**
 * Readies a SQLite database for SQLite to open by its path (SQLite follows
 * links and makes its own files): its directory private (privateDir), the
 * file made 0600 when missing, and it and the files SQLite keeps beside it
 * refused when not the user's alone. SQLite gives those files the
 * database's mode (and, run as root, its owner): one an older smslink left
 * readable by others is made 0600. An existing file is only looked at,
 * never opened: closing a descriptor of it would drop the locks this
 * process's SQLite holds on it (POSIX locks belong to the process).
 */
export function privateDatabase(path: string): void {
  privateDir(dirname(path));
  try {
    closeSync(openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, 0o600));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  for (const file of [path, ...SQLITE_FILES.map((suffix) => `${path}${suffix}`)]) {
    const st = lstatSync(file, { throwIfNoEntry: false });
    if (!st) continue;
    const trouble = problem(file, st, 'file');
    if (trouble) throw trouble;
    // By its path: no one else can swap it in a directory privateDir() checked.
    if (POSIX && (st.mode & 0o077) !== 0) chmodSync(file, 0o600);
  }
}
