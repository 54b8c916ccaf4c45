// The part of undici the CLI uses, as the bundled bin's `undici` (see
// scripts/bundle.mjs). undici's own entry loads everything it has (fetch,
// WebSocket, caches, mocks), about three times what one request needs; this
// entry has the same shape as its default export for what
// src/client/transport.ts takes from it. Used only in the bundle: the library
// (dist/) imports undici itself.
import Dispatcher from 'undici/lib/dispatcher/dispatcher.js';
import api from 'undici/lib/api/index.js';
import Agent from 'undici/lib/dispatcher/agent.js';
import ProxyAgent from 'undici/lib/dispatcher/proxy-agent.js';
import EnvHttpProxyAgent from 'undici/lib/dispatcher/env-http-proxy-agent.js';

// What undici's index.js does so that every dispatcher has request(), stream() ...
Object.assign(Dispatcher.prototype, api);

export default { Agent, ProxyAgent, EnvHttpProxyAgent };
