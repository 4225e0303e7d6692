// nginx's error log format: `2024/05/01 12:00:00 [notice] 1234#1234: message`.
// A message may span lines (a Lua traceback); lines that do not start an
// entry continue the previous one.

export interface ErrorLogEntry {
  readonly level: string;
  /** The process that logged it: the master, a worker... */
  readonly pid: number;
  readonly message: string;
}

const ENTRY_START = /^\d{4}\/\d\d\/\d\d \d\d:\d\d:\d\d \[([a-z]+)\] (\d+)#\d+: (.*)$/;

/** The entry a line starts, or undefined for a continuation line. */
export function parseErrorLogLine(line: string): ErrorLogEntry | undefined {
  const match = ENTRY_START.exec(line);
  if (match === null) return undefined;
  const [, level = '', pid = '', message = ''] = match;
  return { level, pid: Number(pid), message };
}

export function parseErrorLog(lines: readonly string[]): ErrorLogEntry[] {
  const entries: ErrorLogEntry[] = [];
  for (const line of lines) {
    const entry = parseErrorLogLine(line);
    const previous = entries.at(-1);
    if (entry !== undefined) entries.push(entry);
    else if (previous !== undefined) entries[entries.length - 1] = { ...previous, message: `${previous.message}\n${line}` };
  }
  return entries;
}

const FAILURE_LEVELS: ReadonlySet<string> = new Set(['emerg', 'alert', 'crit', 'error']);
const WARNING_LEVELS: ReadonlySet<string> = new Set(['warn']);

/**
 * The failures `pid` logged, one per line as nginx prints them on stderr
 * (`[emerg] bind() to ... failed`). Repeats collapse: nginx retries a bind
 * five times and logs each attempt.
 */
export function describeFailures(entries: readonly ErrorLogEntry[], pid: number): string {
  return describeLevels(entries, pid, FAILURE_LEVELS);
}

/** The warnings `pid` logged while loading a configuration (a conflicting server name), as `nginx -t` prints them. */
export function describeWarnings(entries: readonly ErrorLogEntry[], pid: number): string {
  return describeLevels(entries, pid, WARNING_LEVELS);
}

function describeLevels(entries: readonly ErrorLogEntry[], pid: number, levels: ReadonlySet<string>): string {
  const lines = entries.filter((entry) => entry.pid === pid && levels.has(entry.level)).map((entry) => `[${entry.level}] ${entry.message}`);
  return [...new Set(lines)].join('\n');
}

/** Whether `line` is the entry in which process `pid` logged exactly `message`. */
export function isLogged(line: string, pid: number, message: string): boolean {
  const entry = parseErrorLogLine(line);
  return entry !== undefined && entry.pid === pid && entry.message === message;
}
