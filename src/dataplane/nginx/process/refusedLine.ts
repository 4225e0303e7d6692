// Where in its configuration nginx found what it refused. nginx stops at the
// first error and names the place: `[emerg] unknown directive "x" in
// /prefix/conf/nginx.conf:42`. Errors in other files (an included
// mime.types) or without a place (a port in use) name no line of ours.

/** The line of `configFile` the first failure in `error` names, if any. */
export function refusedLine(error: string, configFile: string): number | undefined {
  const marker = ` in ${configFile}:`;
  for (const line of error.split('\n')) {
    const at = line.lastIndexOf(marker);
    if (at === -1) continue;
    const number = /^\d+$/.exec(line.slice(at + marker.length).trimEnd());
    if (number !== null) return Number(number[0]);
  }
  return undefined;
}

/** nginx refused a configuration; `line` is the line of its text it named, when it named one. */
export class ConfigRefusedError extends Error {
  constructor(
    message: string,
    readonly line: number | undefined,
  ) {
    super(message);
    this.name = 'ConfigRefusedError';
  }
}
