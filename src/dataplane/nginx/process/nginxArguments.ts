// nginx's command line, the same for the master and for a `nginx -t` (the
// benchmarks'), so a test passes only if the configuration can run exactly as
// it will be run.
import type { PrefixLayout } from './prefixLayout.js';

/**
 * Main-context directives Portico owns, passed with `-g` rather than rendered:
 * - `daemon off` and `master_process on`: the child Portico spawns is the
 *   master itself, which Portico signals and watches;
 * - `pid` and `lock_file`: inside the prefix, never the system nginx's;
 * - `error_log <controlLog> notice`: an extra log (error_log may be given
 *   several times) in which Portico reads the master's start, reload and
 *   failure messages whatever the renderer does with its own error_log.
 *
 * nginx refuses a duplicate of any of these but error_log, so the renderer
 * must not emit `daemon`, `master_process`, `pid` or `lock_file`. It should
 * set `error_log` inside `http {}` (and `stream {}`) too, so per-request
 * errors do not also fill the control log.
 */
function porticoDirectives(layout: PrefixLayout): string {
  return [
    'daemon off;',
    'master_process on;',
    `pid "${layout.pidFile}";`,
    `lock_file "${layout.lockFile}";`,
    `error_log "${layout.controlLog}" notice;`,
  ].join(' ');
}

/**
 * Arguments for `nginx` to run (or, with `-t` prepended, test) `configFile` in
 * the prefix. `-e`: what nginx logs before it has read the configuration's
 * error_log (a directive it refuses at start) goes to the control log too, not
 * to stderr, so a refused start is reported with its line (launchMaster.ts).
 */
export function nginxArguments(layout: PrefixLayout, configFile: string): string[] {
  return ['-p', `${layout.prefix}/`, '-e', layout.controlLog, '-c', configFile, '-g', porticoDirectives(layout)];
}
