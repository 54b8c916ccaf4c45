// The part of undici the CLI uses, as the bundled bin's `undici` (see
// scripts/bundle.mjs). undici's own entry loads everything it has (fetch,
// WebSocket, caches, mocks, and the request/stream/pipeline API on every
// dispatcher), several times what smslink needs: src/client/transport.ts
// only creates an agent and calls its dispatch(). This entry has the same
// shape as undici's default export for what the transport takes from it.
// Used only in the bundle: the library (dist/) imports undici itself.
import Agent from 'undici/lib/dispatcher/agent.js';
import ProxyAgent from 'undici/lib/dispatcher/proxy-agent.js';
import EnvHttpProxyAgent from 'undici/lib/dispatcher/env-http-proxy-agent.js';

export default { Agent, ProxyAgent, EnvHttpProxyAgent };
