// The part of undici the CLI uses, as the bundled bin's `undici` (see
// scripts/bundle.mjs). undici's own entry loads everything it has (fetch,
// WebSocket, caches, mocks, and the request/stream/pipeline/upgrade API on
// every dispatcher), several times what smslink needs:
// src/client/transport.ts only creates an agent and calls its dispatch(),
// and a ProxyAgent opens its tunnel with connect(). This entry has the same
// shape as undici's default export for what the transport takes from it.
// Used only in the bundle: the library (dist/) imports undici itself.
import Dispatcher from 'undici/lib/dispatcher/dispatcher.js';
import connect from 'undici/lib/api/api-connect.js';
import Agent from 'undici/lib/dispatcher/agent.js';
import ProxyAgent from 'undici/lib/dispatcher/proxy-agent.js';
import EnvHttpProxyAgent from 'undici/lib/dispatcher/env-http-proxy-agent.js';

// As undici's index.js does for its whole API.
Dispatcher.prototype.connect = connect;

export default { Agent, ProxyAgent, EnvHttpProxyAgent };
