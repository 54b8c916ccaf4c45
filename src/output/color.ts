// Colour decisions live here and nowhere else: only on a terminal, never with
// NO_COLOR or --no-color, and FORCE_COLOR is honoured. chalk is loaded only
// when colour is actually on.

import type { ChalkInstance } from 'chalk';

export interface ColorInputs {
  isTTY: boolean | undefined;
  env: Record<string, string | undefined>;
  /** false when --no-color was given. */
  flag: boolean;
}

export function useColor({ isTTY, env, flag }: ColorInputs): boolean {
  if (!flag) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined) return !(force === '0' || force === 'false');
  if (env.TERM === 'dumb') return false;
  return isTTY === true;
}

export interface Paint {
  bold(s: string): string;
  dim(s: string): string;
  red(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
  cyan(s: string): string;
}

const plain: Paint = { bold: (s) => s, dim: (s) => s, red: (s) => s, green: (s) => s, yellow: (s) => s, cyan: (s) => s };

export async function painter(enabled: boolean): Promise<Paint> {
  if (!enabled) return plain;
  const { Chalk } = await import('chalk');
  const c: ChalkInstance = new Chalk({ level: 1 });
  return { bold: c.bold, dim: c.dim, red: c.red, green: c.green, yellow: c.yellow, cyan: c.cyan };
}

/**
 * Colour for a status in tables, by its word (`delivered`, or `delivered
 * (DELIVRD)` where the code is shown beside it): green went well, red did
 * not, yellow is still under way.
 */
export function tone(word: string, paint: Paint): string {
  switch (word.replace(/ \([A-Z]+\)$/, '')) {
    case 'active':
    case 'approved':
    case 'sent without moderation':
    case 'delivered':
    case 'DELIVRD':
      return paint.green(word);
    case 'inactive':
    case 'blocked':
    case 'undelivered':
    case 'rejected':
    case 'expired':
    case 'deleted':
    case 'UNDELIV':
    case 'REJECTD':
    case 'EXPIRED':
    case 'DELETED':
      return paint.red(word);
    case 'awaiting moderation':
    case 'new':
    case 'queued':
    case 'accepted':
    case 'partly delivered':
    case 'NEW':
    case 'ENQUEUD':
    case 'ACCEPTD':
    case 'PDLIVRD':
      return paint.yellow(word);
    default:
      return word;
  }
}
