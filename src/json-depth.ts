// How deep parsed JSON is nested, found without recursion: a value nested
// deeper than the stack allows (JSON.parse takes it, JSON.stringify and the
// renderers do not) must be refused before anything walks it recursively.

/** Whether `value` has objects or arrays nested more than `max` levels deep (the value itself is level 1). */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  const stack: Array<[object, number]> = value !== null && typeof value === 'object' ? [[value, 1]] : [];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (depth > max) return true;
    for (const child of Object.values(v)) if (child !== null && typeof child === 'object') stack.push([child as object, depth + 1]);
  }
  return false;
}
