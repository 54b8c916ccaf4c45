// A reference for the `link get` row of bench/run.js: one Link/Get through
// the undici that the bin carries (dist/bundle/vendor/undici.cjs, loaded with
// the bin's compile cache and the same keep-alive agent), and nothing of
// smslink: no command line, settings, checks or output. What `link get`
// costs beyond this is smslink's own. Usage: node bench/one-request.cjs <base-url> <key> <id>
const [baseUrl, key, id] = process.argv.slice(2);
require('../bin/compile-cache.js').enableCompileCache(process.env, `${__dirname}/../dist/bundle`, ['one-request']);
const { Agent } = require('../dist/bundle/vendor/undici.cjs').default;

// maxHeaderSize as the transport passes it: without it undici loads node:http to read Node's default.
const agent = new Agent({ keepAliveTimeout: 4_000, maxHeaderSize: 16 * 1024 });
const chunks = [];
agent.dispatch(
  {
    origin: baseUrl,
    path: `/service/Link/Get?output=json&api=v1&apiKey=${encodeURIComponent(key)}`,
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8', accept: 'application/json' },
    body: `id=${id}`,
  },
  {
    onRequestStart() {},
    onResponseStart() {},
    onResponseData(_controller, chunk) {
      chunks.push(chunk);
    },
    onResponseEnd() {
      process.stdout.write(Buffer.concat(chunks));
      agent.close();
    },
    onResponseError(_controller, err) {
      process.exitCode = 1;
      process.stderr.write(`${err.message}\n`);
      agent.close();
    },
  },
);
