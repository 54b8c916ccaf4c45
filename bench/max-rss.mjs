// Preload (`node --import`) of bench/run.js: when the process exits, writes
// its peak resident set size in kilobytes and its CPU time in microseconds
// (getrusage: user and system) to SMSLINK_BENCH_RSS_FILE.
import { writeFileSync } from 'node:fs';

const out = process.env.SMSLINK_BENCH_RSS_FILE;
if (out) {
  process.on('exit', () => {
    const usage = process.resourceUsage();
    writeFileSync(out, `${usage.maxRSS} ${usage.userCPUTime + usage.systemCPUTime}`);
  });
}
