// Where and how the rendered nginx runs: ports, addresses and file paths that
// come from Portico's flags and process manager, not from Kubernetes objects.
import { posix } from 'node:path';

/** Ports with ingress-nginx's flag defaults (--http-port, --https-port, --default-server-port, --status-port). */
export interface ListenPorts {
  readonly http: number;
  readonly https: number;
  /** Internal catch-all answering 404. */
  readonly defaultServer: number;
  /** Health and stub_status, bound to 127.0.0.1 only (the live-state endpoints are on RenderPaths.configurationSocket). */
  readonly status: number;
  /** --ssl-passthrough-proxy-port: with SSL passthrough, where the TLS servers listen behind the stream block (127.0.0.1 only). */
  readonly sslPassthroughProxy: number;
}

export const DEFAULT_PORTS: ListenPorts = { http: 80, https: 443, defaultServer: 8181, status: 10246, sslPassthroughProxy: 442 };

/** The address the status server binds: never reachable from outside the pod. */
export const STATUS_ADDRESS = '127.0.0.1';

/** The address the TLS servers bind with SSL passthrough (renderSslPassthrough.ts): only the stream block connects there. */
export const TLS_HOP_ADDRESS = '127.0.0.1';

export interface TempPaths {
  readonly clientBody: string;
  readonly proxy: string;
  readonly fastcgi: string;
  readonly uwsgi: string;
  readonly scgi: string;
}

/** Absolute paths, or paths relative to nginx's prefix (`-p`). */
export interface RenderPaths {
  /** A file, or `stderr`. */
  readonly errorLog: string;
  /** A file, e.g. `/dev/stdout`. */
  readonly accessLog: string;
  /** ModSecurity's audit log (SecAuditLog), opened by the master; only when ModSecurity is enabled. */
  readonly modSecurityAuditLog: string;
  readonly temp: TempPaths;
  /**
   * Certificate then key of the self-signed fallback: what every TLS server names,
   * and what a handshake keeps when no pushed certificate applies (lua/README.md).
   */
  readonly fakeCertificate: string;
  /** The folder of Configuration.secretFiles, each named by its id (secretFilePath). */
  readonly secretFiles: string;
  readonly mimeTypes: string;
  /** The unix socket of the server answering 503 for a backend without endpoints (lua/README.md). */
  readonly noEndpointsSocket: string;
  /** The unix socket of the configuration server (the Lua modules' live-state endpoints), in a folder only the controller may enter. */
  readonly configurationSocket: string;
  /** SSL passthrough's stream server for the passed-through hosts, and the one closing connections of a host without endpoints. */
  readonly passthroughSocket: string;
  readonly passthroughClosedSocket: string;
}

/** Where lua/portico/monitor.lua sends request records (--enable-metrics). */
export interface MonitorTarget {
  /** The controller's batch listener on 127.0.0.1. */
  readonly port: number;
  /** First line of every batch. */
  readonly token: number;
  /** --monitor-max-batch-size: records a worker keeps between flushes. */
  readonly maxBatchSize: number;
}

/** What lua/portico/balancer.lua refuses as a peer, again at balance time (src/model/selfAddress.ts decides first). */
export interface SelfEndpoints {
  /** Every port Portico and its nginx listen on: never a peer at a loopback or unspecified address. */
  readonly porticoPorts: readonly number[];
  /** Kubernetes mode: loopback and unspecified addresses at any port. */
  readonly refuseLoopback: boolean;
}

export interface RenderContext {
  readonly ports: ListenPorts;
  /** IP addresses the public servers bind (e.g. `127.0.0.1`, `::`); empty binds all IPv4 addresses. */
  readonly listenAddresses: readonly string[];
  /** The host has IPv6 (hostIpv6.ts): without listenAddresses, the public servers also bind IPv6 unless disable-ipv6. */
  readonly hostHasIpv6: boolean;
  readonly paths: RenderPaths;
  /** `user` of the worker processes (only meaningful when nginx starts as root); undefined keeps nginx's default. */
  readonly workerUser: string | undefined;
  /** Directory of Debian's dynamic modules (`ndk_http_module.so`, the stream, headers-more, GeoIP2, ModSecurity modules). */
  readonly modulesDir: string;
  /** The `ngx_http_lua_module.so` nginx loads: Portico's build where installed (luaModule.ts), else Debian's in modulesDir. */
  readonly luaModuleFile: string;
  /** Absolute directory holding Portico's Lua modules (`portico/*.lua`): the repository's `lua/`. */
  readonly luaDir: string;
  /**
   * nginx size of the shared dict holding the pushed backends and certificates
   * (and the largest push the status server accepts); it must hold two copies of the larger document.
   */
  readonly liveStateMemory: string;
  /** Request metrics; undefined renders no monitor hook. */
  readonly monitor: MonitorTarget | undefined;
  readonly selfEndpoints: SelfEndpoints;
  /** The hard open-files limit nginx starts with (openFilesLimit.ts), which max-worker-open-files 0 derives from; undefined when unknown. */
  readonly openFilesLimit: number | undefined;
  /** The MaxMind databases use-geoip2 reads (geoip2Databases.ts); empty: GeoIP2 renders nothing. */
  readonly geoip2Databases: readonly string[];
}

/** Where nginx reads the SecretFile `id` (a literal path: the master loads it, never a worker). */
export function secretFilePath(context: RenderContext, id: string): string {
  if (!/^[a-z0-9.-]+$/.test(id)) throw new Error(`not a secret file id: ${JSON.stringify(id)}`);
  return posix.join(context.paths.secretFiles, id);
}

export const DEFAULT_MODULES_DIR = '/usr/share/nginx/modules';
export const DEFAULT_LIVE_STATE_MEMORY = '64m';

export interface RenderContextOptions {
  luaDir: string;
  ports?: Partial<ListenPorts>;
  listenAddresses?: readonly string[];
  hostHasIpv6?: boolean;
  paths?: Partial<RenderPaths>;
  workerUser?: string;
  modulesDir?: string;
  luaModuleFile?: string;
  liveStateMemory?: string;
  monitor?: MonitorTarget;
  /** Ports besides the listen ports and the monitor's (healthz, webhook), and Kubernetes mode. */
  selfEndpoints?: SelfEndpoints;
  openFilesLimit?: number;
  geoip2Databases?: readonly string[];
}

/** A context with every runtime file under `directory` (which may be relative to nginx's prefix). */
export function createRenderContext(directory: string, options: RenderContextOptions): RenderContext {
  const under = (...parts: string[]): string => posix.join(directory, ...parts);
  const ports = { ...DEFAULT_PORTS, ...options.ports };
  const porticoPorts = [ports.http, ports.https, ports.defaultServer, ports.status, ...(options.monitor ? [options.monitor.port] : [])];
  return {
    ports,
    listenAddresses: options.listenAddresses ?? [],
    hostHasIpv6: options.hostHasIpv6 ?? false,
    paths: {
      errorLog: under('logs', 'error.log'),
      accessLog: under('logs', 'access.log'),
      modSecurityAuditLog: under('logs', 'modsec_audit.log'),
      temp: {
        clientBody: under('temp', 'client_body'),
        proxy: under('temp', 'proxy'),
        fastcgi: under('temp', 'fastcgi'),
        uwsgi: under('temp', 'uwsgi'),
        scgi: under('temp', 'scgi'),
      },
      fakeCertificate: under('fake-certificate.pem'),
      secretFiles: under('secrets'),
      mimeTypes: '/etc/nginx/mime.types',
      noEndpointsSocket: under('run', 'no-endpoints.sock'),
      configurationSocket: under('run', 'controller', 'configuration.sock'),
      passthroughSocket: under('run', 'passthrough.sock'),
      passthroughClosedSocket: under('run', 'passthrough-closed.sock'),
      ...options.paths,
    },
    workerUser: options.workerUser,
    modulesDir: options.modulesDir ?? DEFAULT_MODULES_DIR,
    luaModuleFile: options.luaModuleFile ?? posix.join(options.modulesDir ?? DEFAULT_MODULES_DIR, 'ngx_http_lua_module.so'),
    luaDir: options.luaDir,
    liveStateMemory: options.liveStateMemory ?? DEFAULT_LIVE_STATE_MEMORY,
    monitor: options.monitor,
    selfEndpoints: {
      porticoPorts: [...new Set([...porticoPorts, ...(options.selfEndpoints?.porticoPorts ?? [])])].sort((a, b) => a - b),
      refuseLoopback: options.selfEndpoints?.refuseLoopback ?? false,
    },
    openFilesLimit: options.openFilesLimit,
    geoip2Databases: options.geoip2Databases ?? [],
  };
}
