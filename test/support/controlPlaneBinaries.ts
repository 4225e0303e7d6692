import { spawn } from 'node:child_process';
import { access, constants } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface ControlPlaneBinaries {
  readonly kubeApiServer: string;
  readonly etcd: string;
  /** For the deploy tests: `kubectl kustomize` and scripts that call kubectl. */
  readonly kubectl: string;
}

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
// A cold build compiles kube-apiserver from source (10+ minutes on 2 cores).
const buildTimeoutMs = 45 * 60_000;

let binaries: Promise<ControlPlaneBinaries> | undefined;

/**
 * kube-apiserver and etcd from $PORTICO_CONTROLPLANE_BIN, else from
 * scripts/build-controlplane.sh (which prints its cached bin directory and
 * builds only when that is missing). Looked up once per process.
 */
export function controlPlaneBinaries(): Promise<ControlPlaneBinaries> {
  binaries ??= locate();
  return binaries;
}

async function locate(): Promise<ControlPlaneBinaries> {
  const binDir = process.env['PORTICO_CONTROLPLANE_BIN'] ?? (await runBuildScript());
  const found = { kubeApiServer: join(binDir, 'kube-apiserver'), etcd: join(binDir, 'etcd'), kubectl: join(binDir, 'kubectl') };
  for (const binary of Object.values(found)) {
    await access(binary, constants.X_OK).catch(() => {
      throw new Error(`control plane binary ${binary} is missing or not executable`);
    });
  }
  return found;
}

function runBuildScript(): Promise<string> {
  return new Promise((resolve, reject) => {
    // stderr is inherited so a cold build shows its progress.
    const build = spawn('bash', [join(repoRoot, 'scripts/build-controlplane.sh')], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'inherit'],
      timeout: buildTimeoutMs,
      killSignal: 'SIGKILL',
    });
    let stdout = '';
    build.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    build.once('error', reject);
    build.once('close', (code, signal) => {
      const binDir = stdout.trim().split('\n').pop() ?? '';
      if (code === 0 && binDir !== '') resolve(binDir);
      else reject(new Error(`scripts/build-controlplane.sh failed (code ${code}, signal ${signal})`));
    });
  });
}
