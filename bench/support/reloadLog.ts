// What Portico's log says about its reloads: how many, the longest, and
// whether two were ever in progress at once. Each `nginx reloaded` line is
// written when the master has finished loading (its pino `time`), with
// `reloadMs` from the SIGHUP, so a reload ran from `time - reloadMs` to `time`.
// Lines of other shapes, and lines cut by a concurrent write, are skipped.

export interface ReloadSummary {
  readonly reloads: number;
  readonly longestReloadMs: number;
  /** Reloads that began before an earlier one had ended (0: never two at once). */
  readonly overlaps: number;
  /** The longest `applyMs` of a `configuration applied` line: the data plane's whole part of a sync (render, live push, nginx). */
  readonly longestApplyMs: number;
  /** The longest `liveMs` of a `configuration applied` line: pushing the live state (backends, certificates) to nginx. */
  readonly longestLiveMs: number;
  /** Lines logged at level error or fatal. */
  readonly errors: number;
}

interface LogLine {
  readonly msg?: string;
  readonly level?: string;
  readonly time?: string;
  readonly reloadMs?: number;
  readonly applyMs?: number;
  readonly liveMs?: number;
}

function parsed(line: string): LogLine | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    return JSON.parse(line) as LogLine;
  } catch {
    return undefined;
  }
}

export function summarizeReloads(log: string): ReloadSummary {
  const intervals: { start: number; end: number }[] = [];
  let longestApplyMs = 0;
  let longestLiveMs = 0;
  let errors = 0;
  for (const line of log.split('\n')) {
    const entry = parsed(line);
    if (entry === undefined) continue;
    if (entry.level === 'error' || entry.level === 'fatal') errors++;
    if (entry.msg === 'configuration applied') {
      longestApplyMs = Math.max(longestApplyMs, entry.applyMs ?? 0);
      longestLiveMs = Math.max(longestLiveMs, entry.liveMs ?? 0);
    }
    if (entry.msg === 'nginx reloaded' && typeof entry.reloadMs === 'number' && entry.time !== undefined) {
      const end = Date.parse(entry.time);
      intervals.push({ start: end - entry.reloadMs, end });
    }
  }
  intervals.sort((a, b) => a.start - b.start);
  let overlaps = 0;
  let latestEnd = -Infinity;
  for (const interval of intervals) {
    // Strictly inside: one log line's millisecond stamp and its rounded reloadMs may touch the next's start.
    if (interval.start < latestEnd - 1) overlaps++;
    latestEnd = Math.max(latestEnd, interval.end);
  }
  return {
    reloads: intervals.length,
    longestReloadMs: Math.max(0, ...intervals.map((interval) => interval.end - interval.start)),
    overlaps,
    longestApplyMs,
    longestLiveMs,
    errors,
  };
}
