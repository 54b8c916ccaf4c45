// Files that hold keys or personal data are the user's alone: created 0600 in
// directories that are 0700, never read or written through a symlink, and an
// existing one that another user owns, or that others may write, is refused
// with a message naming the path and the fix (docs/security.md, "Files").

import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** A file or directory smslink will not trust: the message names it and says what to do. */
export class PrivateFileError extends Error {
  constructor(
    readonly path: string,
    why: string,
    fix: string,
  ) {
    super(`${path} ${why}; ${fix}`);
    this.name = 'PrivateFileError';
  }
}

const uid = () => (typeof process.getuid === 'function' ? process.getuid() : undefined);

/** Why an existing file or directory is not the user's alone, or undefined when it is. */
function untrusted(path: string, kind: 'file' | 'directory'): PrivateFileError | undefined {
  let st;
  try {
    st = lstatSync(path);
  } catch {
    return undefined;
  }
  if (st.isSymbolicLink()) return new PrivateFileError(path, 'is a symbolic link', `smslink does not follow links for its own files: remove it, or move the real ${kind} here`);
  if (kind === 'directory' ? !st.isDirectory() : !st.isFile()) return new PrivateFileError(path, `is not a ${kind}`, 'move it out of the way');
  const me = uid();
  if (me !== undefined && st.uid !== me) return new PrivateFileError(path, `belongs to another user (uid ${st.uid})`, `move it out of the way, or point smslink elsewhere`);
  if ((st.mode & 0o022) !== 0) return new PrivateFileError(path, 'may be written by other users', `make it yours alone: chmod ${kind === 'directory' ? '700' : '600'} '${path}'`);
  return undefined;
}

/** Makes the directory (0700) and its parents as needed; an existing one must be the user's alone. */
export function privateDir(dir: string): void {
  const problem = untrusted(dir, 'directory');
  if (problem) throw problem;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
}

/** An existing file that is not the user's alone is refused (PrivateFileError); a missing one is fine. */
export function checkPrivateFile(path: string): void {
  const problem = untrusted(path, 'file');
  if (problem) throw problem;
}

/** The file's text, or undefined when it does not exist; refused when it is not the user's alone. */
export function readPrivateFile(path: string): string | undefined {
  checkPrivateFile(path);
  let fd;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  try {
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes the file whole (0600): a new file beside it, opened so that it
 * cannot be a link or another's file, then renamed over the old one. A
 * reader sees the old text or the new, never half of either.
 */
export function writePrivateFile(path: string, text: string): void {
  privateDir(dirname(path));
  checkPrivateFile(path);
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${Date.now()}.tmp`);
  const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    writeSync(fd, text);
    // The mode asked for is masked by the umask only downwards; a file made by this process is already 0600 or less.
    if ((fstatSync(fd).mode & 0o077) !== 0) throw new PrivateFileError(temp, 'was created readable by others', 'check the file system');
  } catch (err) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw err;
  }
  closeSync(fd);
  renameSync(temp, path);
}
