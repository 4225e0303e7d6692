// A bench's measurement of one size in a child process of its own (started
// with --expose-gc), so that its heap and RSS are that size's alone: the
// child runs the same script with `args` and writes its report as one JSON line.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export function measureInChild<Report>(script: string, args: readonly string[]): Promise<Report> {
  const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
  const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', script, ...args], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      if (code === 0) resolve(JSON.parse(output) as Report);
      else reject(new Error(`the child (${args.join(' ')}) exited with code ${code}`));
    });
  });
}
