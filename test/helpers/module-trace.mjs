// Preload (`node --import`) that records every module file the process loads,
// one per line, in the file named by SMSLINK_TRACE_FILE: ES modules as the
// loader hook (module-trace-hooks.mjs) sees them, CommonJS modules (which
// ES modules of undici or libsql reach through require) from require.cache
// when the process exits, and Node's own public modules it loaded (`node:http`)
// from process.moduleLoadList.
import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';

const out = process.env.SMSLINK_TRACE_FILE;
if (out) {
  register('./module-trace-hooks.mjs', import.meta.url, { data: { out } });
  const require = createRequire(import.meta.url);
  process.on('exit', () => {
    const builtins = process.moduleLoadList.flatMap((m) => (/^NativeModule [a-z_]+$/.test(m) ? [`node:${m.slice('NativeModule '.length)}\n`] : []));
    appendFileSync(out, [...Object.keys(require.cache).map((file) => `${file}\n`), ...builtins].join(''));
  });
}
