// One wrk run (Debian's package) against a loopback port, pinned to a CPU,
// bounded by its duration and a hard timeout, parsed into the figures the
// benchmarks print. A response other than 2xx/3xx fails the run: it would measure an error path.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface LoadResult {
  requests: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  socketErrors: number;
}

export interface WrkOptions {
  port: number;
  /** The Host header. */
  host: string;
  seconds: number;
  connections: number;
  /** The CPU wrk runs on. */
  cpu: number;
}

export async function runWrk(options: WrkOptions): Promise<LoadResult> {
  const { stdout } = await run(
    'taskset',
    [
      '--cpu-list',
      String(options.cpu),
      'wrk',
      '--threads',
      '1',
      '--connections',
      String(options.connections),
      '--duration',
      `${options.seconds}s`,
      '--latency',
      '--header',
      `Host: ${options.host}`,
      `http://127.0.0.1:${options.port}/`,
    ],
    { timeout: (options.seconds + 30) * 1000, killSignal: 'SIGKILL' },
  );
  const nonSuccess = /Non-2xx or 3xx responses: (\d+)/.exec(stdout);
  if (nonSuccess)
    throw new Error(`${nonSuccess[1]} responses were not 2xx through :${options.port}; the benchmark measures nothing useful:\n${stdout}`);
  const socketErrors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(stdout);
  return {
    requests: Number(match(stdout, /^\s+(\d+) requests in /m)),
    requestsPerSecond: Number(match(stdout, /^Requests\/sec:\s+([\d.]+)$/m)),
    p50Ms: latencyMs(stdout, '50%'),
    p99Ms: latencyMs(stdout, '99%'),
    socketErrors: socketErrors ? socketErrors.slice(1).reduce((sum, count) => sum + Number(count), 0) : 0,
  };
}

function match(output: string, pattern: RegExp): string {
  const found = pattern.exec(output)?.[1];
  if (found === undefined) throw new Error(`unexpected wrk output (no ${pattern}):\n${output}`);
  return found;
}

const LATENCY_UNIT_MS: Readonly<Record<string, number>> = { us: 0.001, ms: 1, s: 1000 };

/** A line of wrk's latency distribution, e.g. `     99%    3.21ms`. */
function latencyMs(output: string, percentile: string): number {
  // wrk pads a value in seconds with a trailing space (`99%    1.02s `).
  const line = new RegExp(`^\\s+${percentile}\\s+([\\d.]+)(us|ms|s)\\s*$`, 'm').exec(output);
  if (line === null) throw new Error(`unexpected wrk output (no ${percentile} latency):\n${output}`);
  return Number(line[1]) * LATENCY_UNIT_MS[line[2]!]!;
}
