// Reading what a Portico process logged, for tests and benchmarks that count
// what its sync loop did.
import { open } from 'node:fs/promises';

/** The text appended to a file since `offset` bytes. */
export async function readFrom(path: string, offset: number): Promise<string> {
  const file = await open(path);
  try {
    const { size } = await file.stat();
    const buffer = Buffer.alloc(Math.max(0, size - offset));
    await file.read(buffer, 0, buffer.length, offset);
    return buffer.toString('utf8');
  } finally {
    await file.close();
  }
}

/** The sync loop's 'configuration applied' lines, and how many of them reloaded nginx. */
export function appliedConfigurations(log: string): { lines: string[]; reloads: number } {
  const lines = log.split('\n').filter((line) => line.includes('configuration applied'));
  return { lines, reloads: lines.filter((line) => line.includes('"outcome":"reloaded"')).length };
}
