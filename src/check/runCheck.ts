// `portico check`: collect (the controller's sources, once) → analyse (the
// controller's model) → format (a table or JSON on stdout). Logs go to stderr.
import { availableParallelism } from 'node:os';
import { pino } from 'pino';
import { CommandLineError } from '../cli/commandLine.js';
import { createLogger } from '../log/logger.js';
import { analyseCluster } from './analyseCluster.js';
import { parseCheckCommandLine } from './checkCommandLine.js';
import { collectObjects, CollectError } from './collectObjects.js';
import { formatJson } from './formatJson.js';
import { formatTable } from './formatTable.js';

/** Nothing would change, something would, the check could not be made. */
export const CHECK_EXIT = { unchanged: 0, changes: 1, error: 2 } as const;

/** Runs `portico check` with `argv` (the words after `check`) and returns its exit code. */
export async function runCheck(argv: readonly string[]): Promise<number> {
  let commandLine;
  try {
    commandLine = parseCheckCommandLine(argv);
  } catch (error) {
    if (!(error instanceof CommandLineError)) throw error;
    process.stderr.write(`portico check: ${error.message}\n`);
    return CHECK_EXIT.error;
  }
  if (commandLine.kind === 'exit') {
    process.stdout.write(commandLine.output);
    return commandLine.exitCode;
  }
  const { flags } = commandLine;
  const logger = createLogger(flags.v, pino.destination({ dest: 2, sync: true }));
  // The report is the output: below -v=2 only what went wrong while reading is logged.
  if (flags.v < 2) logger.level = 'warn';
  try {
    const collected = await collectObjects(flags, commandLine.fromDeployment, logger);
    const report = analyseCluster({ ...collected, flags, environment: { cpus: availableParallelism() } });
    process.stdout.write(commandLine.output === 'json' ? formatJson(report) : formatTable(report));
    return report.changes ? CHECK_EXIT.changes : CHECK_EXIT.unchanged;
  } catch (error) {
    if (!(error instanceof CollectError)) throw error;
    process.stderr.write(`portico check: ${error.message}\n`);
    return CHECK_EXIT.error;
  }
}
