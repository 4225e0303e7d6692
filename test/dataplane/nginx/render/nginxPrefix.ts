// Runs the real nginx on rendered configurations, in throw-away prefixes
// holding the files the configuration names.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import type { Configuration } from '../../../../src/model/types.js';
import { certificateFilePath, type RenderContext } from '../../../../src/dataplane/nginx/render/renderContext.js';

const run = promisify(execFile);

export const NGINX_BINARY = '/usr/sbin/nginx';

/** A reason to skip the tests that run nginx, or undefined when it is installed. */
export const missingNginx: string | undefined = existsSync(NGINX_BINARY) ? undefined : `${NGINX_BINARY} is not installed`;

let throwAwayCertificate: Promise<string> | undefined;

/** One self-signed P-256 certificate + key (PEM) for every certificate file of the tests. */
function certificatePem(): Promise<string> {
  throwAwayCertificate ??= (async () => {
    const dir = await mkdtemp(join(tmpdir(), 'portico-render-cert-'));
    try {
      const cert = join(dir, 'cert.pem');
      const key = join(dir, 'key.pem');
      await run('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
        '-keyout', key, '-out', cert, '-days', '2', '-subj', '/CN=portico-render-test'], { timeout: 30_000 });
      return (await readFile(cert, 'utf8')) + (await readFile(key, 'utf8'));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  })();
  return throwAwayCertificate;
}

/** A throw-away nginx prefix holding a configuration and every file it names. */
export interface NginxPrefix {
  readonly dir: string;
  readonly confFile: string;
  /** Arguments for nginx to use this prefix (before `-t`, or to run it in the foreground). */
  readonly args: readonly string[];
  remove(): Promise<void>;
}

/**
 * Writes `conf` and the files it names (certificates, log and temp
 * directories) under a temporary prefix. The context's paths must be
 * relative (see fixtures.testContext).
 */
export async function createNginxPrefix(conf: string, configuration: Configuration, context: RenderContext): Promise<NginxPrefix> {
  const dir = await mkdtemp(join(tmpdir(), 'portico-render-nginx-'));
  // nginx started as root runs its workers as nobody: they must reach the temp directories.
  await chmod(dir, 0o755);
  const inPrefix = (path: string): string => join(dir, path);
  const { paths } = context;
  for (const subdir of [dirname(paths.errorLog), dirname(paths.accessLog), ...Object.values(paths.temp).map(dirname), paths.certificateDir]) {
    await mkdir(inPrefix(subdir), { recursive: true });
  }
  const pem = await certificatePem();
  const certificateFiles = [paths.fakeCertificate, ...configuration.certificates.map((cert) => certificateFilePath(context, cert.id))];
  for (const file of certificateFiles) await writeFile(inPrefix(file), pem, { mode: 0o600 });
  const confFile = inPrefix('nginx.conf');
  await writeFile(confFile, conf);
  return {
    dir,
    confFile,
    args: ['-p', `${dir}/`, '-c', confFile, '-g', `daemon off; pid ${dir}/nginx.pid;`],
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

/** Runs `nginx -t` on `conf` in a throw-away prefix; resolves with nginx's output, rejects with it when the test fails. */
export async function nginxSyntaxCheck(conf: string, configuration: Configuration, context: RenderContext): Promise<string> {
  const prefix = await createNginxPrefix(conf, configuration, context);
  try {
    const { stdout, stderr } = await run(NGINX_BINARY, ['-t', ...prefix.args], { timeout: 30_000 });
    return stdout + stderr;
  } catch (error) {
    const { stderr = '' } = error as { stderr?: string };
    throw new Error(`nginx -t failed:\n${stderr}`);
  } finally {
    await prefix.remove();
  }
}
