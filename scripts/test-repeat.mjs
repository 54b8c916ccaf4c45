// npm run test:repeat -- N [vitest arguments]: runs the test suite (or the
// files given) N times in a row, on this Node, and tells which tests failed
// in which run. A test that fails once in N is a bug to find, not a run to
// try again (README, Development). Every run goes to the end, so the summary
// shows how often each test fails; the exit code is 1 if any run failed.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const [count, ...vitestArgs] = process.argv.slice(2);
const runs = Number(count);
if (!Number.isInteger(runs) || runs < 1) {
  console.error('usage: npm run test:repeat -- N [vitest arguments]   (N: how many runs, a whole number of at least 1)');
  process.exitCode = 2;
} else {
  repeat(runs);
}

function repeat(runs) {
  const dir = mkdtempSync(join(tmpdir(), 'smslink-repeat-'));
  const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');
  /** Name of each test that failed -> the runs it failed in. */
  const failures = new Map();
  let failedRuns = 0;
  try {
    for (let run = 1; run <= runs; run++) {
      console.log(`\n== run ${run} of ${runs}`);
      const results = join(dir, `run-${run}.json`);
      const started = Date.now();
      const r = spawnSync(process.execPath, [vitest, 'run', ...vitestArgs, '--reporter=dot', '--reporter=json', `--outputFile.json=${results}`], {
        cwd: root,
        stdio: 'inherit',
      });
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const failed = failedTests(results);
      if (r.status !== 0 && failed.length === 0) failed.push(`the run itself (vitest exit ${r.status ?? r.signal})`);
      for (const name of failed) failures.set(name, [...(failures.get(name) ?? []), run]);
      if (failed.length) failedRuns++;
      console.log(`== run ${run} of ${runs}: ${failed.length ? `${failed.length} failed` : 'all passed'} in ${seconds} s`);
      for (const name of failed) console.log(`   failed: ${name}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`\n== ${runs - failedRuns} of ${runs} runs passed`);
  for (const [name, where] of failures) console.log(`   ${name}: failed in run${where.length > 1 ? 's' : ''} ${where.join(', ')}`);
  process.exitCode = failedRuns ? 1 : 0;
}

/** "file > describe > test" of every test that failed, and every file that failed to run, from vitest's JSON report. */
function failedTests(file) {
  let report;
  try {
    report = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return [];
  }
  const out = [];
  for (const suite of report.testResults ?? []) {
    const where = suite.name.startsWith(root) ? suite.name.slice(root.length) : suite.name;
    const failed = (suite.assertionResults ?? []).filter((t) => t.status === 'failed');
    for (const t of failed) out.push(`${where} > ${[...t.ancestorTitles, t.title].join(' > ')}`);
    if (suite.status === 'failed' && failed.length === 0) out.push(`${where} (${(suite.message || 'failed to run').split('\n')[0]})`);
  }
  return out;
}
