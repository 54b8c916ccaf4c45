// An emulator in a process of its own, for tests that need several processes
// on one database file. Options come as JSON in argv[2]; the first stdout line
// is the base URL; it closes cleanly when stdin ends or on SIGTERM.
// Runs smslink/emulator as the package ships it for import,
// dist/bundle/emulator.mjs (the test global setup builds it).
import { startEmulator } from '../../dist/bundle/emulator.mjs';

const emulator = await startEmulator(JSON.parse(process.argv[2] ?? '{}'));
process.stdout.write(`${emulator.url}\n`);
let closing = false;
const stop = async () => {
  if (closing) return;
  closing = true;
  await emulator.close();
  process.exit(0);
};
process.stdin.on('end', stop);
process.stdin.resume();
process.on('SIGTERM', stop);
