// Normalises what the service sends back by the field types in the catalog:
// the live service sends most numbers as strings ("id":"417863"). Integer
// fields become numbers, null stays null, unknown fields pass through
// untouched, and nothing here ever throws, whatever JSON arrives.

import type { Shape } from '../catalog/types.js';

const INT_RE = /^-?\d+$/;
const FLOAT_RE = /^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

export function normalize(shape: Shape, value: unknown): unknown {
  if (value === null || value === undefined) return value;
  if (shape === 'any' || shape === 'string') return value;
  if (shape === 'int') {
    if (typeof value === 'string' && INT_RE.test(value.trim())) {
      const n = Number(value.trim());
      return Number.isSafeInteger(n) ? n : value;
    }
    return value;
  }
  if (shape === 'float') {
    if (typeof value === 'string' && FLOAT_RE.test(value.trim())) return Number(value.trim());
    return value;
  }
  if ('array' in shape) {
    return Array.isArray(value) ? value.map((item) => normalize(shape.array, item)) : value;
  }
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const fieldShape = Object.hasOwn(shape.object, key) ? shape.object[key] : shape.rest;
    out[key] = fieldShape ? normalize(fieldShape, v) : v;
  }
  return out;
}
