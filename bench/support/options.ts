/** A command-line option that must be a positive integer (a count or a duration in seconds). */
export function positiveInteger(flag: string, value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) throw new Error(`${flag} wants a positive integer, got ${value}`);
  return parsed;
}
