// Hostnames as nginx server names. nginx gives meaning to a leading `~`
// (regex), a leading `.` or `*`, a trailing `.*`, `$hostname` and `..`; only
// a plain DNS name is written as an exact name, anything else is matched
// through an anchored regex with every character escaped, so it stays exact.
import { isDnsName, literal, type Argument } from './arguments.js';
import { escapeRegex } from './regex.js';
import type { Server } from '../../../model/types.js';

/** The model's catch-all server. */
export const CATCH_ALL_HOSTNAME = '_';

const WILDCARD_PREFIX = '*.';

/**
 * The server_name argument of a hostname: `_`, an exact name, or a regex.
 * `*.example.com` matches exactly one label (nginx's own `*.` would match several).
 */
export function serverNameArgument(hostname: string): Argument {
  if (hostname === CATCH_ALL_HOSTNAME || exactServerName(hostname) !== undefined) return literal(hostname);
  if (hostname.startsWith(WILDCARD_PREFIX) && hostname.length > WILDCARD_PREFIX.length) {
    return literal(`~^[^.]+\\.${escapeRegex(hostname.slice(WILDCARD_PREFIX.length))}$`);
  }
  return literal(`~^${escapeRegex(hostname)}$`);
}

/** The server_name arguments of a server: its hostname, then its aliases (server-alias). */
export function serverNameArguments(server: Server): Argument[] {
  return [server.hostname, ...(server.aliases ?? []).map((alias) => alias.hostname)].map(serverNameArgument);
}

/** The hostname when nginx stores it as an exact name (in its server names hash), else undefined. */
export function exactServerName(hostname: string): string | undefined {
  return isDnsName(hostname) ? hostname : undefined;
}

/**
 * server_names_hash_bucket_size and _max_size that fit the exact names (as
 * ingress-nginx computes them): nginx refuses to start when one name does not
 * fit a bucket. The ConfigMap's sizes (server-name-hash-*) are floors the
 * names raise, as in ingress-nginx.
 */
export function serverNamesHashSizes(
  hostnames: readonly string[],
  floor: { bucketSize: number; maxSize: number },
): { bucketSize: number; maxSize: number } {
  const exactNames = hostnames.flatMap((hostname) => exactServerName(hostname) ?? []);
  const longest = Math.max(0, ...exactNames.map((name) => name.length));
  const totalBytes = exactNames.reduce((sum, name) => sum + name.length, 0);
  return {
    bucketSize: Math.max(floor.bucketSize, hashBucketSize(longest)),
    maxSize: Math.max(floor.maxSize, nextPowerOfTwo(totalBytes)),
  };
}

const WORD_SIZE = 8;

// ngx_hash element: a value pointer, a length, then the name padded to a word.
function hashBucketSize(longestName: number): number {
  const aligned = Math.ceil((longestName + 2) / WORD_SIZE) * WORD_SIZE;
  return nextPowerOfTwo(WORD_SIZE + WORD_SIZE + aligned);
}

function nextPowerOfTwo(value: number): number {
  let power = 1;
  while (power < value) power *= 2;
  return power;
}
