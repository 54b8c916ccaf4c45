// The `side-channel` package as qs uses it, for the bundled bin only (see
// scripts/bundle.mjs): a store keyed by objects (held weakly, as the package
// does with WeakMap) or by primitives, with the package's methods. The
// package reaches the same maps through a dozen ES5-era shims that cost
// start-up time; Node has WeakMap and Map.
'use strict';

module.exports = function getSideChannel() {
  const objects = new WeakMap();
  const primitives = new Map();
  const mapOf = (key) => (key !== null && (typeof key === 'object' || typeof key === 'function') ? objects : primitives);
  return {
    assert(key) {
      if (!mapOf(key).has(key)) throw new TypeError(`Side channel does not contain ${mapOf(key) === objects ? 'the given object key' : String(key)}`);
    },
    delete: (key) => mapOf(key).delete(key),
    get: (key) => mapOf(key).get(key),
    has: (key) => mapOf(key).has(key),
    set(key, value) {
      mapOf(key).set(key, value);
    },
  };
};
