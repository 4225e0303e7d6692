// Structured logs through pino. ingress-nginx users pass klog's `-v`; its
// levels map onto pino's: 0-1 info (the default chart runs at 1), 2-4 debug
// (2 is where ingress-nginx logs config diffs), 5 and up trace.
import { pino, type Logger, type DestinationStream } from 'pino';

export type { Logger };

export function levelForVerbosity(verbosity: number): pino.Level {
  if (verbosity >= 5) return 'trace';
  if (verbosity >= 2) return 'debug';
  return 'info';
}

export function createLogger(verbosity: number, destination?: DestinationStream): Logger {
  return pino(
    {
      level: levelForVerbosity(verbosity),
      name: 'portico',
      base: undefined,
      formatters: { level: (label) => ({ level: label }) },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    // Synchronous writes: a controller's log volume is small, and lines written
    // just before exit (a fatal error, a shutdown) must not be lost.
    destination ?? pino.destination({ dest: 1, sync: true }),
  );
}

/** A logger that drops everything, for tests that do not look at logs. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
