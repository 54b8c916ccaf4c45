// Refusals in the live service's shapes (real-service-notes.md "Error
// answers, live"): code 1 with a general sentence and each wrong field's
// texts as a list (`data.fullLink[0]`), code 11 with data null and the
// parameter group named, code 12 with the rule in the message and the same
// field lists. docs/emulator-wire.md "Error answers" shows each.

import type { Issue } from '../../catalog/validate.js';
import { fail, type Answer } from './handler.js';

type Problem = Pick<Issue, 'key' | 'wire' | 'rule' | 'code'>;

/** Each field's texts, as the live service lists them: `{"fullLink": ["must be a URL ..."]}`; a choice (`id|code|shortLink`) under each of its fields. */
export function fieldTexts(issues: readonly Problem[]): Record<string, string[]> {
  const data: Record<string, string[]> = {};
  for (const i of issues) for (const key of i.key.split('|')) (data[key] ??= []).push(i.rule);
  return data;
}

/** The group a wire name belongs to, as the live service names it: `data[fullLink]` -> `data`. */
const groupOf = (wire: string) => wire.split('[')[0];

/**
 * The answer for validation problems of `name` (`Link/Create`, as the route
 * is called): missing (11, or the parameter's own code) and constraint (12)
 * codes win over plain validation (1).
 */
export function answerIssues(name: string, issues: readonly Problem[]): Answer {
  const first = issues.find((i) => i.code !== 1) ?? issues[0];
  const chosen = issues.filter((i) => i.code === first.code);
  const wires = [...new Set(chosen.map((i) => i.wire))];
  if (first.code === 1) {
    return fail(1, `One or more parameters contain incorrect data (${wires.join(', ')}): check the errors in data and try again.`, fieldTexts(chosen));
  }
  if (first.code === 11) {
    const groups = [...new Set(wires.map(groupOf))].join(', ');
    const required = `${wires.join(', ')} ${wires.length > 1 ? 'are' : 'is'} required`;
    return fail(11, `Parameter(s) ${groups} are not valid for this module and method. Check the documentation of ${name}: ${required}.`);
  }
  // A choice between parameters (`id|code|shortLink`) is named by its rule alone.
  const rules = chosen.map((i) => (i.wire.includes('|') ? i.rule : `${i.wire} ${i.rule}`)).join('; ');
  return fail(first.code, `${name}: ${rules}`, first.code === 12 ? fieldTexts(chosen) : null);
}

/** A request that cannot be read as a whole (its body, or its size): code 1 with the text under `body`, or 12 under `request`. */
export function requestRefused(code: 1 | 12, rule: string): Answer {
  return fail(code, rule, { [code === 1 ? 'body' : 'request']: [rule] });
}
