/** Escapes PCRE metacharacters so the pattern matches `value` itself only. */
export function escapeRegex(value: string): string {
  return value.replace(/[\\^$.|?*+()[\]{}]/g, '\\$&');
}
