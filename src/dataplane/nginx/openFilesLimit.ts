// The hard RLIMIT_NOFILE of this process, which nginx (its child) inherits:
// what ingress-nginx derives worker_rlimit_nofile from (renderMainContext.ts).
// Node has no getrlimit; Linux shows the limits in /proc/self/limits.
import { readFile } from 'node:fs/promises';

/** `Max open files   <soft>   <hard>   files`; undefined when the file is missing or the limit is unlimited. */
export function parseOpenFilesLimit(limits: string): number | undefined {
  const match = /^Max open files\s+\S+\s+([0-9]+)\s/m.exec(limits);
  return match?.[1] === undefined ? undefined : Number(match[1]);
}

export async function readOpenFilesLimit(): Promise<number | undefined> {
  try {
    return parseOpenFilesLimit(await readFile('/proc/self/limits', 'utf8'));
  } catch {
    return undefined;
  }
}
