// The directory Portico's nginx runs in (its `-p` prefix). Everything nginx
// reads or writes lives here, so it never touches the system nginx's files
// (/etc/nginx, /run/nginx.pid, /var/log/nginx, /var/lib/nginx).
import { chmod, mkdir, readdir, rm, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';

/** nginx's five on-disk request buffers; the renderer points each `*_temp_path` at one. */
export interface TempDirs {
  readonly clientBody: string;
  readonly proxy: string;
  readonly fastcgi: string;
  readonly uwsgi: string;
  readonly scgi: string;
}

/** Absolute paths inside the prefix. */
export interface PrefixLayout {
  readonly prefix: string;
  /** The configuration nginx runs: always the last good one between operations. */
  readonly configFile: string;
  /** Where a new configuration is written (and, at start, tested) before it replaces `configFile`. */
  readonly candidateConfigFile: string;
  /** The last configuration nginx refused (at test or at reload), kept for inspection. */
  readonly rejectedConfigFile: string;
  /**
   * The last configuration nginx ran (a hard link to `configFile` once it loaded): a refused one's place is
   * restored from it, and a master that died restarts with it, so the controller keeps no copy of the text.
   */
  readonly lastGoodConfigFile: string;
  /** Written by nginx (Portico passes `pid` on the command line); the renderer must not emit `pid`. */
  readonly pidFile: string;
  /** For the renderer's `error_log`. */
  readonly errorLog: string;
  /** For the renderer's `access_log`. */
  readonly accessLog: string;
  /** Portico's own notice-level log of the master's events (see nginxArguments.ts); not for the renderer. */
  readonly controlLog: string;
  readonly lockFile: string;
  /** Parent of the temp dirs; nginx creates each one and hands it to the worker user. */
  readonly tempDir: string;
  readonly temp: TempDirs;
  /** Certificates and keys, readable by Portico and the nginx master only (mode 0700). */
  readonly certificateDir: string;
  /** Configuration.secretFiles (CA bundles, CRLs, backend client keys): the master reads them at load, nothing else may (0700, files 0600). */
  readonly secretFileDir: string;
  /** The unix sockets nginx listens on; emptied before each master starts (see clearSocketDir). */
  readonly socketDir: string;
  /** The no-endpoints server's socket: the balancer's peer for a backend without endpoints (lua/README.md). */
  readonly noEndpointsSocket: string;
  /** Inside socketDir, the controller's only (0700): the configuration server's socket lives here, out of the workers' and backends' reach. */
  readonly controllerSocketDir: string;
  /** The configuration server (Lua's /configuration/* endpoints): a unix socket, so no backend address can ever name it. */
  readonly configurationSocket: string;
  /** SSL passthrough's internal stream servers (renderSslPassthrough.ts). */
  readonly passthroughSocket: string;
  readonly passthroughClosedSocket: string;
}

/** sockaddr_un's sun_path holds 108 bytes, the terminating NUL included. */
const MAX_SOCKET_PATH_BYTES = 107;

// Characters that would need escaping inside an nginx token, or that nginx
// interpolates ($) or expands (include globs): a prefix never needs them.
// eslint-disable-next-line no-control-regex
const UNSAFE_PATH_CHARACTERS = /[\x00-\x1f\x7f"\\$*?[]/;

export function prefixLayout(prefix: string): PrefixLayout {
  const root = resolve(prefix);
  if (UNSAFE_PATH_CHARACTERS.test(root))
    throw new Error(`unsupported nginx prefix ${JSON.stringify(prefix)}: no quotes, backslashes, $, glob or control characters`);
  const conf = join(root, 'conf');
  const logs = join(root, 'logs');
  const tempDir = join(root, 'tmp');
  const socketDir = join(root, 'run');
  const noEndpointsSocket = join(socketDir, 'no-endpoints.sock');
  const controllerSocketDir = join(socketDir, 'controller');
  const configurationSocket = join(controllerSocketDir, 'configuration.sock');
  const passthroughSocket = join(socketDir, 'passthrough.sock');
  const passthroughClosedSocket = join(socketDir, 'passthrough-closed.sock');
  for (const socket of [noEndpointsSocket, configurationSocket, passthroughClosedSocket]) {
    if (Buffer.byteLength(socket) > MAX_SOCKET_PATH_BYTES) {
      throw new Error(`nginx prefix ${JSON.stringify(prefix)} is too long: its socket ${socket} exceeds ${MAX_SOCKET_PATH_BYTES} bytes`);
    }
  }
  return {
    prefix: root,
    configFile: join(conf, 'nginx.conf'),
    candidateConfigFile: join(conf, 'nginx.conf.candidate'),
    rejectedConfigFile: join(conf, 'nginx.conf.rejected'),
    lastGoodConfigFile: join(conf, 'nginx.conf.good'),
    pidFile: join(logs, 'nginx.pid'),
    errorLog: join(logs, 'error.log'),
    accessLog: join(logs, 'access.log'),
    controlLog: join(logs, 'control.log'),
    lockFile: join(logs, 'nginx.lock'),
    tempDir,
    temp: {
      clientBody: join(tempDir, 'client_body'),
      proxy: join(tempDir, 'proxy'),
      fastcgi: join(tempDir, 'fastcgi'),
      uwsgi: join(tempDir, 'uwsgi'),
      scgi: join(tempDir, 'scgi'),
    },
    certificateDir: join(root, 'certs'),
    secretFileDir: join(root, 'secrets'),
    socketDir,
    noEndpointsSocket,
    controllerSocketDir,
    configurationSocket,
    passthroughSocket,
    passthroughClosedSocket,
  };
}

/**
 * Creates the prefix's folders. Workers run as nginx's unprivileged default
 * user (`nobody`) when Portico is root, and only they write the temp dirs: so
 * the prefix and tmp/ must be traversable by anyone (0755; the prefix's
 * parents too), while nginx itself creates each temp dir 0700 and chowns it to
 * the worker user. certs/ is read by the master only, at load and before it
 * drops privileges, so it stays private (0700); certificate paths must
 * therefore not contain variables (those are loaded by workers per request).
 * conf/ stays 0755 for files workers read per request (auth_basic_user_file);
 * Portico writes the configuration files themselves 0600.
 */
export async function createPrefixDirs(layout: PrefixLayout): Promise<void> {
  const modes: [string, number][] = [
    [layout.prefix, 0o755],
    [join(layout.prefix, 'conf'), 0o755],
    [join(layout.prefix, 'logs'), 0o755],
    [layout.tempDir, 0o755],
    [layout.certificateDir, 0o700],
    [layout.secretFileDir, 0o700],
    // Workers connect to the sockets here (nginx makes each one 0666).
    [layout.socketDir, 0o755],
    // nginx makes its sockets 0666: only this folder keeps the configuration server the controller's.
    [layout.controllerSocketDir, 0o700],
  ];
  for (const [dir, mode] of modes) {
    await mkdir(dir, { recursive: true, mode });
    // mkdir's mode is filtered by the umask and ignored for existing folders (a mkdtemp prefix is 0700).
    await chmod(dir, mode);
  }
  await requireTraversableParents(layout.prefix);
}

/**
 * Started as root, nginx runs its workers unprivileged (`nobody` by
 * default), and they connect to the sockets in run/ (a backend without
 * endpoints gets its 503 from one): every folder above the prefix must let
 * others through. Otherwise such a request would fail with a 502, so refuse
 * to start instead.
 */
async function requireTraversableParents(prefix: string): Promise<void> {
  if (process.getuid?.() !== 0) return; // the workers run as this user
  for (let dir = dirname(prefix); ; dir = dirname(dir)) {
    const mode = (await stat(dir)).mode;
    if ((mode & 0o001) === 0) {
      throw new Error(
        `nginx's unprivileged workers cannot reach ${prefix}: ${dir} has mode ${(mode & 0o777).toString(8)}, ` +
          'without search permission for others (chmod o+x it, or choose another --nginx-prefix)',
      );
    }
    if (dir === dirname(dir)) return;
  }
}

/**
 * Removes the sockets a master left behind. nginx unlinks its unix sockets
 * when it exits normally; one killed (SIGKILL, OOM) leaves them, and the next
 * master then fails to bind ("Address already in use"). Call only while no
 * master runs in this prefix.
 */
export async function clearSocketDir(layout: PrefixLayout): Promise<void> {
  for (const dir of [layout.socketDir, layout.controllerSocketDir]) {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw error;
    }
    for (const entry of entries) if (!entry.isDirectory()) await rm(join(dir, entry.name), { force: true });
  }
}
