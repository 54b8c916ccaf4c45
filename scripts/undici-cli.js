// The part of undici the CLI uses, as the bundled bin's `undici` (see
// scripts/bundle.mjs). undici's own entry loads everything it has (fetch,
// WebSocket, caches, mocks, and the request/stream/pipeline/upgrade API on
// every dispatcher), several times what smslink needs:
// src/client/transport.ts only creates an agent and calls its dispatch(),
// and a ProxyAgent opens its tunnel with connect(). This entry has the same
// shape as undici's default export for what the transport takes from it.
// Used only in the bundle: the library (dist/) imports undici itself.
//
// The proxy agents and connect() are required when first used: a command
// against a loopback host (the emulator, the tests) uses a plain Agent, and
// does not run their modules.
// The lazy parts are require()d: esbuild bundles them, and runs a module when it is first required.
/* eslint-disable @typescript-eslint/no-require-imports */
import Dispatcher from 'undici/lib/dispatcher/dispatcher.js';
import Agent from 'undici/lib/dispatcher/agent.js';

/** Requires a proxy agent's module, with connect() on every dispatcher first (its tunnel is opened with it). */
function proxied(load) {
  // As undici's index.js does for its whole API.
  Dispatcher.prototype.connect ??= require('undici/lib/api/api-connect.js');
  return load();
}

export default {
  Agent,
  get ProxyAgent() {
    return proxied(() => require('undici/lib/dispatcher/proxy-agent.js'));
  },
  get EnvHttpProxyAgent() {
    return proxied(() => require('undici/lib/dispatcher/env-http-proxy-agent.js'));
  },
};
