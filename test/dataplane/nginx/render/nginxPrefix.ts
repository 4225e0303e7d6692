// Runs the real nginx (with Debian's Lua module) on rendered configurations,
// in throw-away prefixes holding the files the configuration names.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import type { RenderContext } from '../../../../src/dataplane/nginx/render/renderContext.js';
import { writeSecretFiles } from '../../../../src/dataplane/nginx/process/secretFiles.js';
import type { SecretFile } from '../../../../src/model/types.js';

const run = promisify(execFile);

export const NGINX_BINARY = '/usr/sbin/nginx';

/** The dynamic modules every rendering loads (Debian's libnginx-mod-http-lua), under the default modulesDir. */
const LUA_MODULES = ['/usr/share/nginx/modules/ndk_http_module.so', '/usr/share/nginx/modules/ngx_http_lua_module.so'];

/** A reason to skip the tests that run nginx, or undefined when it and its Lua module are installed. */
export const missingNginx: string | undefined = [NGINX_BINARY, ...LUA_MODULES]
  .find((path) => !existsSync(path))
  ?.concat(' is not installed');

/** The subject of the static fallback certificate the prefixes hold. */
export const FAKE_CERTIFICATE_NAME = 'portico-render-test';

/** A self-signed P-256 certificate for `name` (CN and SAN). */
export async function selfSignedCertificate(name: string): Promise<{ certificatePem: string; keyPem: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'portico-render-cert-'));
  try {
    const cert = join(dir, 'cert.pem');
    const key = join(dir, 'key.pem');
    await run(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        key,
        '-out',
        cert,
        '-days',
        '2',
        '-subj',
        `/CN=${name}`,
        '-addext',
        `subjectAltName=DNS:${name}`,
      ],
      { timeout: 30_000 },
    );
    return { certificatePem: await readFile(cert, 'utf8'), keyPem: await readFile(key, 'utf8') };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

let fakeCertificate: Promise<string> | undefined;

/** One certificate + key (PEM) for the fake certificate file of every prefix. */
function fakeCertificatePem(): Promise<string> {
  fakeCertificate ??= selfSignedCertificate(FAKE_CERTIFICATE_NAME).then(({ certificatePem, keyPem }) => certificatePem + keyPem);
  return fakeCertificate;
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
 * Writes `conf` and the files it names (the fake certificate, log and temp
 * directories, `secretFiles`) under a temporary prefix. The context's paths must be
 * relative (see fixtures.testContext), its luaDir the repository's lua/.
 */
export async function createNginxPrefix(
  conf: string,
  context: RenderContext,
  secretFiles: readonly SecretFile[] = [],
): Promise<NginxPrefix> {
  const dir = await mkdtemp(join(tmpdir(), 'portico-render-nginx-'));
  // nginx started as root runs its workers as nobody: they must reach the temp directories.
  await chmod(dir, 0o755);
  const inPrefix = (path: string): string => join(dir, path);
  const { paths } = context;
  for (const file of [
    paths.errorLog,
    paths.accessLog,
    ...(Object.values(paths.temp) as string[]),
    paths.fakeCertificate,
    paths.noEndpointsSocket,
    paths.configurationSocket,
  ]) {
    await mkdir(inPrefix(dirname(file)), { recursive: true });
  }
  await writeFile(inPrefix(paths.fakeCertificate), await fakeCertificatePem(), { mode: 0o600 });
  await mkdir(inPrefix(paths.secretFiles), { recursive: true, mode: 0o700 });
  await writeSecretFiles(inPrefix(paths.secretFiles), secretFiles);
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
export async function nginxSyntaxCheck(conf: string, context: RenderContext, secretFiles: readonly SecretFile[] = []): Promise<string> {
  const prefix = await createNginxPrefix(conf, context, secretFiles);
  try {
    // `-t` binds unix sockets too, and resolves a relative socket path against the working directory.
    const { stdout, stderr } = await run(NGINX_BINARY, ['-t', ...prefix.args], { timeout: 30_000, cwd: prefix.dir });
    return stdout + stderr;
  } catch (error) {
    const { stderr = '' } = error as { stderr?: string };
    throw new Error(`nginx -t failed:\n${stderr}`);
  } finally {
    await prefix.remove();
  }
}
