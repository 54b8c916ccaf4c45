// The GitHub Actions workflow of docs/emulator.md ("In a CI job"), run as
// the runner runs it: each step's `run` under `bash -eo pipefail` in the
// app's directory with the job's env, $GITHUB_PATH read between steps, a
// failed step skipping the rest but those marked `if: always()`. What a
// runner would fetch stands in: the `uses:` steps are left out, the app has
// no dependencies (so `npm ci` installs nothing), smslink is this checkout's
// bin on the PATH, and 8080 is a free port.
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { binEnv, tempDir } from '../helpers/run-cli.js';

const BIN = fileURLToPath(new URL('../../bin/smslink.js', import.meta.url));
const DOC = readFileSync(new URL('../../docs/emulator.md', import.meta.url), 'utf8');

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  if?: string;
  env?: Record<string, string>;
}

/** The workflow: the yaml block of the section "In a CI job". */
function workflowText(): string {
  const section = DOC.split('\n## In a CI job\n')[1]?.split('\n## ')[0] ?? '';
  const block = /```yaml\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error('docs/emulator.md "In a CI job" has no yaml block');
  return block;
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise((resolve) => s.close(resolve));
  return port;
}

/** The app under test: its test script sends a code as the app would, then reads it back as the doc's test does. */
function writeApp(dir: string): void {
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', private: true, scripts: { test: 'node login.test.js' } }, null, 2));
  writeFileSync(
    join(dir, 'package-lock.json'),
    JSON.stringify({ name: 'app', version: '1.0.0', lockfileVersion: 3, requires: true, packages: { '': { name: 'app', version: '1.0.0' } } }, null, 2),
  );
  writeFileSync(
    join(dir, 'login.test.js'),
    `const { execFileSync } = require('node:child_process');
const assert = require('node:assert');
(async () => {
  // The app: sends its one-time code through the service's API, wherever SMS_API_URL points.
  const sent = Math.floor(100000 + Math.random() * 900000).toString();
  const body = new URLSearchParams({ recipient: '77011234567', text: 'Your code is ' + sent });
  const res = await fetch(process.env.SMS_API_URL + '/service/Message/SendSmsMessage?output=json&api=v1&apiKey=' + process.env.SMS_API_KEY, { method: 'POST', body });
  assert.strictEqual((await res.json()).code, 0);
  // The test: reads it from the emulator's inbox.
  const code = execFileSync('smslink', ['inbox', 'wait', '--to', '+77011234567', '--timeout', '30s',
    '--jq', '.text | capture("(?<code>[0-9]{4,6})").code']).toString().trim();
  assert.strictEqual(code, sent);
  console.log('login test passed with code ' + code);
})().catch((err) => { console.error(err); process.exit(1); });
`,
  );
}

interface StepRun {
  name: string;
  code: number | null;
  output: string;
}

const groups: number[] = [];
afterAll(() => {
  // What a step left running (serve, in the background) is in that step's process group.
  for (const pid of groups) {
    try {
      process.kill(-pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }
});

function runStep(script: string, cwd: string, env: Record<string, string | undefined>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const file = join(cwd, `.step-${groups.length}.sh`);
    writeFileSync(file, script);
    // As the runner's `shell: bash`: bash --noprofile --norc -eo pipefail {0}.
    const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', file], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    groups.push(child.pid!);
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

describe('the GitHub Actions workflow of docs/emulator.md', () => {
  it('starts serve, waits for it, runs the app\'s tests (which read the code the app sent) and shows the inbox', async () => {
    const port = await freePort();
    const workflow = parse(workflowText().replaceAll('8080', String(port))) as { jobs: Record<string, { env?: Record<string, string>; steps: Step[] }> };
    const [job] = Object.values(workflow.jobs);
    const root = tempDir();
    const app = join(root, 'app');
    const shims = join(root, 'bin');
    mkdirSync(app);
    mkdirSync(shims);
    writeApp(app);
    // smslink as an install would put it on the PATH.
    writeFileSync(join(shims, 'smslink'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
    chmodSync(join(shims, 'smslink'), 0o755);
    const githubPath = join(root, 'github_path');
    writeFileSync(githubPath, '');
    const base = binEnv({
      ...job.env,
      CI: 'true',
      GITHUB_PATH: githubPath,
      HOME: root,
      SMSLINK_DATA_DIR: tempDir(),
      // npm as a runner has it, but offline: the app has nothing to fetch.
      npm_config_audit: 'false',
      npm_config_fund: 'false',
      npm_config_update_notifier: 'false',
      npm_config_offline: 'true',
      npm_config_cache: join(root, 'npm-cache'),
    });
    const runs: StepRun[] = [];
    let failed = false;
    for (const step of job.steps) {
      if (step.uses || !step.run) continue;
      if (failed && !/always\(\)/.test(step.if ?? '')) continue;
      const added = readFileSync(githubPath, 'utf8').split('\n').filter(Boolean).reverse();
      const env = { ...base, ...step.env, PATH: [...added, shims, process.env.PATH].join(':') };
      const { code, output } = await runStep(step.run, app, env);
      runs.push({ name: step.name ?? step.run, code, output });
      if (code !== 0) failed = true;
    }
    expect(runs.map((r) => [r.name, r.code]), runs.map((r) => `--- ${r.name}\n${r.output}`).join('\n')).toEqual([
      ['Install the app and smslink', 0],
      ['Put smslink on the PATH', 0],
      ['Start the SMS emulator', 0],
      ["Run the app's tests", 0],
      ['Show the messages the app sent', 0],
    ]);
    expect(runs[2].output).toMatch(new RegExp(`http://127\\.0\\.0\\.1:${port} is ready`));
    const code = /login test passed with code (\d{6})/.exec(runs[3].output)?.[1];
    expect(code).toBeDefined();
    expect(runs[4].output).toMatch(new RegExp(`^1 +\\S+ \\S+ +77011234567 +SMSLINK +\\S+ +Your code is ${code}$`, 'm'));
  }, 120_000);
});
