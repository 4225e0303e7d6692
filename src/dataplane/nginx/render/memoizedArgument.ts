// A render writes the same few hundred keywords, variable names and header
// names a million times: each distinct value is validated and issued once,
// and the same immutable Argument is handed out after that. A value refused
// is never remembered (its check throws every time).

/** Distinct values remembered at most: beyond them (names from many objects' data), each call validates again. */
const MAX_REMEMBERED = 4096;

export function memoizedArgument<K extends string, A>(issue: (value: K) => A): (value: K) => A {
  const issued = new Map<K, A>();
  return (value) => {
    const known = issued.get(value);
    if (known !== undefined) return known;
    const argument = issue(value);
    if (issued.size < MAX_REMEMBERED) issued.set(value, argument);
    return argument;
  };
}
