// Loader hooks of module-trace.mjs: append each loaded ES module's URL before it loads.
import { appendFileSync } from 'node:fs';

let out;

export function initialize(data) {
  out = data.out;
}

export async function load(url, context, nextLoad) {
  appendFileSync(out, `${url}\n`);
  return nextLoad(url, context);
}
