// A reference for the `link get` row of bench/run.js: one Link/Get through
// Node's own HTTP client on a keep-alive agent, as smslink's transport sends
// a single request (src/client/node-http.ts), and nothing of smslink: no
// command line, settings, checks or output. What `link get` costs beyond
// this is smslink's own. Usage: node bench/one-request.cjs <base-url> <key> <id>
const [baseUrl, key, id] = process.argv.slice(2);
const http = require('node:http');

const agent = new http.Agent({ keepAlive: true, timeout: 4_000 });
const url = new URL(baseUrl);
const body = `id=${id}`;
const req = http.request({
  agent,
  hostname: url.hostname,
  port: url.port,
  method: 'POST',
  path: `/service/Link/Get?output=json&api=v1&apiKey=${encodeURIComponent(key)}`,
  headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8', accept: 'application/json', 'content-length': Buffer.byteLength(body) },
});
req.on('response', (res) => {
  const chunks = [];
  res.on('data', (chunk) => chunks.push(chunk));
  res.on('end', () => {
    process.stdout.write(Buffer.concat(chunks));
    agent.destroy();
  });
});
req.on('error', (err) => {
  process.exitCode = 1;
  process.stderr.write(`${err.message}\n`);
});
req.end(body);
