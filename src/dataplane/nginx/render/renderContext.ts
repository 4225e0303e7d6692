// Where and how the rendered nginx runs: ports, addresses and file paths that
// come from Portico's flags and process manager, not from Kubernetes objects.
import { posix } from 'node:path';
import { describeValue } from './arguments.js';

/** Ports with ingress-nginx's flag defaults (--http-port, --https-port, --default-server-port, --status-port). */
export interface ListenPorts {
  readonly http: number;
  readonly https: number;
  /** Internal catch-all answering 404. */
  readonly defaultServer: number;
  /** Health and stub_status, bound to 127.0.0.1 only. */
  readonly status: number;
}

export const DEFAULT_PORTS: ListenPorts = { http: 80, https: 443, defaultServer: 8181, status: 10246 };

/** The address the status server binds: never reachable from outside the pod. */
export const STATUS_ADDRESS = '127.0.0.1';

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
  readonly temp: TempPaths;
  /** Directory of the `<id>.pem` files (certificate then key) written by the caller with mode 0600. */
  readonly certificateDir: string;
  /** Certificate then key of the self-signed fallback used when no default certificate is configured. */
  readonly fakeCertificate: string;
  readonly mimeTypes: string;
}

export interface RenderContext {
  readonly ports: ListenPorts;
  /** IP addresses the public servers bind (e.g. `127.0.0.1`, `::`); empty binds all IPv4 addresses. */
  readonly listenAddresses: readonly string[];
  readonly paths: RenderPaths;
  /** `user` of the worker processes (only meaningful when nginx starts as root); undefined keeps nginx's default. */
  readonly workerUser: string | undefined;
}

export interface RenderContextOptions {
  ports?: Partial<ListenPorts>;
  listenAddresses?: readonly string[];
  paths?: Partial<RenderPaths>;
  workerUser?: string;
}

/** A context with every runtime file under `directory` (which may be relative to nginx's prefix). */
export function createRenderContext(directory: string, options: RenderContextOptions = {}): RenderContext {
  const under = (...parts: string[]): string => posix.join(directory, ...parts);
  return {
    ports: { ...DEFAULT_PORTS, ...options.ports },
    listenAddresses: options.listenAddresses ?? [],
    paths: {
      errorLog: under('logs', 'error.log'),
      accessLog: under('logs', 'access.log'),
      temp: {
        clientBody: under('temp', 'client_body'),
        proxy: under('temp', 'proxy'),
        fastcgi: under('temp', 'fastcgi'),
        uwsgi: under('temp', 'uwsgi'),
        scgi: under('temp', 'scgi'),
      },
      certificateDir: under('certificates'),
      fakeCertificate: under('fake-certificate.pem'),
      mimeTypes: '/etc/nginx/mime.types',
      ...options.paths,
    },
    workerUser: options.workerUser,
  };
}

// Ids become file names: no separators, no leading dot, so no traversal out of the directory.
const CERTIFICATE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

/** The PEM file (certificate then key) of a Certificate: where the caller writes it and what nginx.conf names. */
export function certificateFilePath(context: RenderContext, certificateId: string): string {
  if (!CERTIFICATE_ID.test(certificateId)) throw new Error(`invalid certificate id for a file name: ${describeValue(certificateId)}`);
  return posix.join(context.paths.certificateDir, `${certificateId}.pem`);
}
