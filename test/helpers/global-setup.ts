// Runs once before the suite: tests that spawn the real bin need dist/ (tsc
// output and the bundled CLI) built from the current sources, exactly as
// `npm run build` builds it. The bins the suite spawns share one compile
// cache (bin/compile-cache.js), removed at the end, never the user's.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export default function setup(): () => void {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
  const cache = mkdtempSync(join(tmpdir(), 'smslink-test-cache-'));
  process.env.SMSLINK_TEST_CACHE_DIR = cache;
  return () => rmSync(cache, { recursive: true, force: true });
}
