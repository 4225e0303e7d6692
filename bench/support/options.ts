import { parseArgs } from 'node:util';
import { parseCommandLine } from '../../src/cli/commandLine.js';

/** A command-line option that must be a positive integer (a count or a duration in seconds). */
export function positiveInteger(flag: string, value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) throw new Error(`${flag} wants a positive integer, got ${value}`);
  return parsed;
}

/** Portico's --sync-rate-limit when none is given (ingress-nginx's 0.3). */
export function defaultSyncRateLimit(): number {
  const parsed = parseCommandLine([]);
  if (parsed.kind !== 'run') throw new Error('an empty command line should run');
  return parsed.flags.syncRateLimit;
}

/** `--duration` (seconds per round, default 10) and `--rounds`: the command line of the side-by-side benchmarks. */
export function roundOptions(defaultRounds: number): { seconds: number; rounds: number } {
  const { values } = parseArgs({
    options: { duration: { type: 'string', default: '10' }, rounds: { type: 'string', default: String(defaultRounds) } },
    strict: true,
  });
  return { seconds: positiveInteger('--duration', values.duration), rounds: positiveInteger('--rounds', values.rounds) };
}
