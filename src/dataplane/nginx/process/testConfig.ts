// `nginx -t`: parses a configuration and loads everything it references
// (certificates, modules, temp paths) without binding ports or serving.
//
// Only ever run it on text Portico rendered: loading a configuration runs
// code it names (load_module, init_by_lua*) as the user Portico runs as.
import { execFile } from 'node:child_process';
import { nginxArguments } from './nginxArguments.js';
import type { PrefixLayout } from './prefixLayout.js';

export type ConfigTestResult =
  | { readonly ok: true; /** nginx's warnings (e.g. a conflicting server name), empty when none. */ readonly warnings: string }
  | { readonly ok: false; readonly error: string };

export function testConfig(binary: string, layout: PrefixLayout, configFile: string, timeoutMs: number): Promise<ConfigTestResult> {
  // -q leaves only warnings and errors on stderr. execFile with an argument
  // array: no shell ever sees a path or a directive.
  const args = ['-t', '-q', ...nginxArguments(layout, configFile)];
  return new Promise((resolve) => {
    execFile(binary, args, { timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 4 * 1024 * 1024 }, (error, _stdout, stderr) => {
      const output = stderr.trim();
      if (error === null) {
        resolve({ ok: true, warnings: output });
      } else if (error.killed) {
        resolve({ ok: false, error: `nginx -t did not finish within ${timeoutMs} ms` });
      } else {
        resolve({ ok: false, error: output === '' ? `nginx -t failed: ${error.message}` : output });
      }
    });
  });
}
