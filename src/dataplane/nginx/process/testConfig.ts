// `nginx -t`: parses a configuration and loads everything it references
// (certificates, modules, temp paths, log files) without binding ports or serving.
//
// Only ever run it on text Portico rendered: loading a configuration runs
// code it names (load_module, init_by_lua*) as the user Portico runs as.
import { spawn } from 'node:child_process';
import { nginxArguments } from './nginxArguments.js';
import type { PrefixLayout } from './prefixLayout.js';

export type ConfigTestResult =
  | { readonly ok: true; /** nginx's warnings (e.g. a conflicting server name), empty when none. */ readonly warnings: string }
  | { readonly ok: false; readonly error: string };

/** What is kept of nginx's stderr (its messages are a few lines). */
const MAX_OUTPUT_BYTES = 4 * 1024 * 1024;

export function testConfig(binary: string, layout: PrefixLayout, configFile: string, timeoutMs: number): Promise<ConfigTestResult> {
  // -q leaves only warnings and errors on stderr. An argument array: no shell
  // ever sees a path or a directive. stdout is Portico's, as the master's is
  // (masterProcess.ts): a log at /dev/stdout opens in the test exactly when it
  // will in the master (a pipe would be a socket, which /dev/stdout cannot open).
  const args = ['-t', '-q', ...nginxArguments(layout, configFile)];
  return new Promise((resolve) => {
    const child = spawn(binary, args, { stdio: ['ignore', 'inherit', 'pipe'], timeout: timeoutMs, killSignal: 'SIGKILL' });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      if (stderr.length < MAX_OUTPUT_BYTES) stderr += chunk;
    });
    child.once('error', (error) => resolve({ ok: false, error: `nginx -t failed: ${error.message}` }));
    child.once('close', (code, signal) => {
      const output = stderr.trim();
      if (code === 0) resolve({ ok: true, warnings: output });
      else if (signal === 'SIGKILL') resolve({ ok: false, error: `nginx -t did not finish within ${timeoutMs} ms` });
      else resolve({ ok: false, error: output === '' ? `nginx -t failed: exit code ${code}, signal ${signal}` : output });
    });
  });
}
