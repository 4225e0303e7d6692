// Whether two values would be written as the same JSON, without writing
// either: the sync loop's change check. At 10,000 Ingresses a configuration's
// JSON is tens of MiB, and the loop held two of them (the running and the
// submitted one) besides writing a third at every sync; this walks the two
// values once and stops at the first difference.

/**
 * `JSON.stringify(a) === JSON.stringify(b)`, by JSON's rules: keys in their
 * order, properties whose value is undefined, a function or a symbol left out
 * (null in arrays), non-finite numbers as null, `toJSON` (a Date) applied.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  return sameValue(jsonOf(a, ''), jsonOf(b, ''));
}

/** What JSON.stringify writes for a value: undefined when it writes nothing. */
function jsonOf(value: unknown, key: string): unknown {
  if (typeof value === 'object' && value !== null && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    value = (value as { toJSON: (key: string) => unknown }).toJSON(key);
  }
  switch (typeof value) {
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
    case 'number':
      return Number.isFinite(value) ? value : null;
    default:
      return value;
  }
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) return Array.isArray(b) && sameArray(a, b);
  return !Array.isArray(b) && sameObject(a as Record<string, unknown>, b as Record<string, unknown>);
}

function sameArray(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let index = 0; index < a.length; index++) {
    const key = String(index);
    // An element JSON cannot write is written as null.
    if (!sameValue(jsonOf(a[index], key) ?? null, jsonOf(b[index], key) ?? null)) return false;
  }
  return true;
}

function sameObject(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const aKeys = Object.keys(a);
  const bKeys = Object.keys(b);
  let j = 0;
  for (const key of aKeys) {
    const aValue = jsonOf(a[key], key);
    if (aValue === undefined) continue;
    // The next property of b that JSON writes must be this one, with the same value.
    let bValue: unknown;
    while (j < bKeys.length && (bValue = jsonOf(b[bKeys[j] as string], bKeys[j] as string)) === undefined) j++;
    if (j === bKeys.length || bKeys[j] !== key || !sameValue(aValue, bValue)) return false;
    j++;
  }
  while (j < bKeys.length) {
    const key = bKeys[j++] as string;
    if (jsonOf(b[key], key) !== undefined) return false;
  }
  return true;
}
