// Preload (`node --import`) of bench/run.js: when the process exits, writes
// its peak resident set size in kilobytes (getrusage) to SMSLINK_BENCH_RSS_FILE.
import { writeFileSync } from 'node:fs';

const out = process.env.SMSLINK_BENCH_RSS_FILE;
if (out) process.on('exit', () => writeFileSync(out, String(process.resourceUsage().maxRSS)));
