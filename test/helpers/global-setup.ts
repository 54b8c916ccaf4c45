// Runs once before the suite: tests that spawn the real bin need dist/ (tsc
// output and the bundled CLI) built from the current sources, exactly as
// `npm run build` builds it. It is built unless it is newer than every file
// and folder it is built from, so running one test file again does not
// rebuild (8-13 s) for nothing. The bins the suite spawns share one compile
// cache (bin/compile-cache.js), never the user's. Every temporary file of the
// run lives in one folder (TMPDIR), removed at the end.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** What `npm run build` reads: a change (or a file added or removed: its folder changes) here means dist/ is out of date. */
const INPUTS = ['src', 'scripts', 'package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json'];

/** The newest modification time under `path` (files and folders), in ms. */
function newest(path: string): number {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => newest(join(path, name))));
}

/** Whether dist/ was built after the last change to what it is built from (contents.json is the bundle's last file). */
export function distIsCurrent(root: string): boolean {
  const built = statSync(join(root, 'dist/bundle/contents.json'), { throwIfNoEntry: false })?.mtimeMs ?? 0;
  return built > Math.max(...INPUTS.map((input) => newest(join(root, input))));
}

export default function setup(): () => void {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  if (process.env.CI || !distIsCurrent(root)) execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
  // The tests' folders, the bins', SQLite's and Chromium's: left in the system's, each run added thousands
  // (600,000 on one machine), and a tool that lists it, as esbuild does, slowed to a crawl.
  const scratch = mkdtempSync(join(tmpdir(), 'smslink-tests-'));
  process.env.TMPDIR = scratch;
  const cache = mkdtempSync(join(scratch, 'smslink-test-cache-'));
  process.env.SMSLINK_TEST_CACHE_DIR = cache;
  return () => rmSync(scratch, { recursive: true, force: true });
}
