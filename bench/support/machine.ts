// The machine a run measured on. Benchmarks share it with whatever else runs,
// so each run prints the load around it: figures taken under load compare
// only with figures taken under similar load.
import { availableParallelism, loadavg } from 'node:os';

export function describeMachine(): string {
  const [one = 0, five = 0, fifteen = 0] = loadavg();
  return `${availableParallelism()} cores, load average ${one.toFixed(2)} / ${five.toFixed(2)} / ${fifteen.toFixed(2)} (1 / 5 / 15 min)`;
}
