// Runs once before the suite: tests that spawn the real bin need dist/ (tsc
// output and the bundled CLI) built from the current sources, exactly as
// `npm run build` builds it.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export default function setup(): void {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
}
