// A real nginx running Portico's Lua modules (lua/portico/*) with the hooks
// the renderer is to emit: a status server with the configuration endpoints,
// the `upstream_balancer` upstream, proxied locations that name their backend
// in $proxy_upstream_name, and an HTTPS server whose certificate Lua picks.
// Started through `setpriv --pdeathsig SIGTERM`, so it cannot outlive the test.
import { spawn, type ChildProcess } from 'node:child_process';
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { chooseLuaModule } from '../../src/dataplane/nginx/luaModule.js';
import { eventually } from '../support/eventually.js';
import { freeLoopbackPorts } from '../support/freePort.js';

const run = promisify(execFile);

export const NGINX_BINARY = '/usr/sbin/nginx';
/** NDK, then the Lua module Portico's data plane loads (Portico's build where installed: luaModule.ts). */
export const LUA_MODULES = ['/usr/share/nginx/modules/ndk_http_module.so', chooseLuaModule().file];

/** A reason to skip the tests that run nginx with Lua, or undefined when they can run. */
export const missingLuaNginx: string | undefined = [NGINX_BINARY, ...LUA_MODULES].find((path) => !existsSync(path))?.concat(' is not installed');

/** The repository's lua/ folder, for lua_package_path. */
export const LUA_ROOT = fileURLToPath(new URL('../../lua/', import.meta.url));
/** test/lua/: portico_unit.lua, the unit tests behind `location = /lua-unit` (test configuration only). */
export const TEST_LUA_ROOT = fileURLToPath(new URL('./', import.meta.url));

export const WORKER_PROCESSES = 2;
/** The literal backend of `location /` (what the renderer writes for a rule). */
export const DEFAULT_LOCATION_BACKEND = 'default-echo-80';

export interface LuaNginxPorts {
  /** 127.0.0.1: /configuration/*, /is-dynamic-lb-initialized. */
  readonly status: number;
  /**
   * Proxied through Lua: `/` → DEFAULT_LOCATION_BACKEND, `/to/<backend>/...` → <backend>
   * (`/unlimited-retries/<backend>/...` the same with proxy_next_upstream_tries 0;
   * `/preset-cookie/<backend>/...` the same with a `preset=1` Set-Cookie set before the balancer's;
   * `/rewrite-hook/<backend>/...` the same with the rewrite hook of TLS and gRPC upstreams;
   * `/rewrite-race/<backend>/...` the same, and the access phase then stores a push of no backends);
   * `/static/` → the static upstream; `/lua-unit?key=abc` → the Lua unit tests;
   * `/ewma-state?peer=<host:port>` → ewma's shared-dict entries for an endpoint (JSON).
   * Proxied responses carry `X-Alternative: $proxy_alternative_upstream_name` and `X-Upstream-Addr`.
   */
  readonly http: number;
  /** TLS with the fake certificate plus the ClientHello hook; servers a.example.test (no context) and own.example.test (its own). */
  readonly https: number;
  /** `return 200` inside the same nginx: a backend that costs almost nothing. */
  readonly cheapBackend: number;
}

export interface LuaNginxOptions {
  /** Where `location /static/` proxies through a plain `upstream` block (default: the cheap backend). */
  readonly staticUpstream?: { readonly address: string; readonly port: number };
  /** client_body_buffer_size of the status server; small, so big pushes reach Lua as a file. */
  readonly statusBodyBufferSize?: string;
}

export interface RunningLuaNginx {
  readonly prefix: string;
  readonly ports: LuaNginxPorts;
  readonly masterPid: number;
  /** PEM of the static certificate every TLS handshake starts with. */
  readonly fakeCertificatePem: string;
  workerPids(): number[];
  errorLog(): string;
  stop(): Promise<void>;
}

export interface LuaNginxConfInput {
  readonly prefix: string;
  readonly ports: LuaNginxPorts;
  readonly staticUpstream: { readonly address: string; readonly port: number };
  readonly statusBodyBufferSize: string;
}

/** The whole nginx.conf; the Lua hooks are the parts lua/README.md lists. */
export function luaNginxConf({ prefix, ports, staticUpstream, statusBodyBufferSize }: LuaNginxConfInput): string {
  // What the renderer emits around every Lua-balanced location (lua/README.md).
  const balanced = (locationPath: string): string => `set $proxy_alternative_upstream_name "";
      set $location_path "${locationPath}";
      add_header X-Alternative $proxy_alternative_upstream_name always;
      add_header X-Upstream-Addr $upstream_addr always;
      log_by_lua_block { portico_balancer.log() }`;
  const proxied = `proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_next_upstream error timeout;
      proxy_connect_timeout 2s;`;
  return `${LUA_MODULES.map((path) => `load_module ${path};`).join('\n')}
worker_processes ${WORKER_PROCESSES};
error_log ${prefix}/logs/error.log notice;
events { worker_connections 1024; }
http {
  access_log off;
  error_log ${prefix}/logs/error.log notice;
  client_body_temp_path ${prefix}/tmp/client_body;
  proxy_temp_path ${prefix}/tmp/proxy;
  fastcgi_temp_path ${prefix}/tmp/fastcgi;
  uwsgi_temp_path ${prefix}/tmp/uwsgi;
  scgi_temp_path ${prefix}/tmp/scgi;

  lua_package_path "${LUA_ROOT}?.lua;${TEST_LUA_ROOT}?.lua;;";
  lua_shared_dict portico_configuration 16m;
  lua_shared_dict portico_balancer_ewma 10m;
  init_by_lua_block {
    -- Test-only: ngx_lua warns about global writes from request code only, so
    -- compare _G around the loading of Portico's modules (libraries first).
    require("cjson.safe"); require("ngx.balancer"); require("ngx.ssl")
    local globals = {}
    for name in pairs(_G) do globals[name] = true end

    require("portico.balancer")
    require("portico.configuration")
    require("portico.certificate")
    -- Loaded by the master (root), as Portico's own modules are: workers run as
    -- nobody and may not read a private checkout.
    require("portico_unit")

    for name in pairs(_G) do
      if not globals[name] then ngx.log(ngx.ERR, "portico test: global variable written at load: ", name) end
    end

    -- As Portico's nginx.conf does (luaCall.ts): the hooks call through these globals.
    portico_balancer = require("portico.balancer")
    portico_configuration = require("portico.configuration")
    portico_certificate = require("portico.certificate")
    portico_balancer.init({ status_port = ${ports.status}, portico_ports = { ${ports.http}, ${ports.https} } })
  }

  upstream upstream_balancer {
    server 0.0.0.1; # placeholder: portico.balancer picks every peer
    balancer_by_lua_block { portico_balancer.balance() }
    keepalive 32;
  }
  map "" $portico_no_endpoints_peer {
    default unix:${prefix}/run/no-endpoints.sock;
  }
  server {
    listen unix:${prefix}/run/no-endpoints.sock;
    keepalive_timeout 0;
    location / { return 503; }
  }
  upstream static_upstream {
    server ${staticUpstream.address}:${staticUpstream.port};
    keepalive 32;
  }

  server {
    listen 127.0.0.1:${ports.status};
    access_log off;
    client_max_body_size 32m;
    client_body_buffer_size ${statusBodyBufferSize};
    location = /configuration/backends { content_by_lua_block { portico_configuration.handle_backends() } }
    location = /configuration/certificates { content_by_lua_block { portico_configuration.handle_certificates() } }
    location = /is-dynamic-lb-initialized { content_by_lua_block { portico_configuration.handle_initialized() } }
    location / { return 404; }
  }

  server {
    listen 127.0.0.1:${ports.http};
    location / {
      set $proxy_upstream_name "${DEFAULT_LOCATION_BACKEND}";
      ${balanced('/')}
      ${proxied}
      proxy_next_upstream_tries 3;
      proxy_pass http://upstream_balancer;
    }
    location ~ ^/to/(?<backend_name>[^/]+) {
      set $proxy_upstream_name $backend_name;
      ${balanced('/to')}
      ${proxied}
      proxy_next_upstream_tries 3;
      proxy_pass http://upstream_balancer;
    }
    location ~ ^/unlimited-retries/(?<backend_name>[^/]+) {
      set $proxy_upstream_name $backend_name;
      ${balanced('/unlimited-retries')}
      ${proxied}
      proxy_next_upstream_tries 0;
      proxy_pass http://upstream_balancer;
    }
    location ~ ^/preset-cookie/(?<backend_name>[^/]+) {
      set $proxy_upstream_name $backend_name;
      ${balanced('/preset-cookie')}
      rewrite_by_lua_block { ngx.header["Set-Cookie"] = "preset=1; Path=/" }
      ${proxied}
      proxy_next_upstream_tries 3;
      proxy_pass http://upstream_balancer;
    }
    location ~ ^/rewrite-hook/(?<backend_name>[^/]+) {
      set $proxy_upstream_name $backend_name;
      ${balanced('/rewrite-hook')}
      rewrite_by_lua_block { portico_balancer.rewrite() }
      ${proxied}
      proxy_next_upstream_tries 3;
      proxy_pass http://upstream_balancer;
    }
    location ~ ^/rewrite-race/(?<backend_name>[^/]+) {
      set $proxy_upstream_name $backend_name;
      ${balanced('/rewrite-race')}
      rewrite_by_lua_block { portico_balancer.rewrite() }
      # A push that lands between the rewrite hook and the balancer: no backends at all.
      access_by_lua_block { assert(require("portico.state").write("backends", '{"backends": []}')) }
      ${proxied}
      proxy_next_upstream_tries 3;
      proxy_pass http://upstream_balancer;
    }
    location = /lua-unit {
      content_by_lua_block { require("portico_unit").run() }
    }
    location = /ewma-state {
      content_by_lua_block {
        local dict, peer = ngx.shared.portico_balancer_ewma, ngx.var.arg_peer
        ngx.say(require("cjson").encode({ ewma = dict:get("e" .. peer), touched = dict:get("t" .. peer), active = dict:get("a" .. peer) }))
      }
    }
    location /static/ {
      ${proxied}
      proxy_next_upstream_tries 3;
      proxy_pass http://static_upstream;
    }
  }

  # As Portico's nginx.conf (renderTlsContext.ts): the listener's default server
  # sets the certificate from the ClientHello; a server without TLS directives has
  # no context of its own; one with them has its own context and hook.
  server {
    listen 127.0.0.1:${ports.https} ssl default_server;
    ssl_certificate ${prefix}/certs/fake.crt;
    ssl_certificate_key ${prefix}/certs/fake.key;
    ssl_client_hello_by_lua_block { portico_certificate.client_hello() }
    location / { return 200 "tls\\n"; }
  }

  server {
    listen 127.0.0.1:${ports.https} ssl;
    server_name a.example.test;
    location / { return 200 "tls without a context\\n"; }
  }

  server {
    listen 127.0.0.1:${ports.https} ssl;
    server_name own.example.test;
    ssl_certificate ${prefix}/certs/fake.crt;
    ssl_certificate_key ${prefix}/certs/fake.key;
    ssl_prefer_server_ciphers off;
    ssl_certificate_by_lua_block { portico_certificate.call() }
    location / { return 200 "tls with its own context\\n"; }
  }

  server {
    listen 127.0.0.1:${ports.cheapBackend};
    access_log off;
    location / { return 200 "cheap\\n"; }
  }
}
`;
}

/** A self-signed P-256 certificate for `names` (first is the CN), made with the openssl CLI. */
export async function selfSignedCertificate(dir: string, fileStem: string, names: readonly string[]): Promise<{ cert: string; key: string; pem: string }> {
  const certFile = join(dir, `${fileStem}.crt`);
  const keyFile = join(dir, `${fileStem}.key`);
  await run('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
    '-keyout', keyFile, '-out', certFile, '-days', '2', '-subj', `/CN=${names[0] ?? fileStem}`,
    '-addext', `subjectAltName=${names.map((name) => `DNS:${name}`).join(',')}`], { timeout: 30_000 });
  const cert = readFileSync(certFile, 'utf8');
  const key = readFileSync(keyFile, 'utf8');
  return { cert, key, pem: cert + key };
}

export async function startLuaNginx(options: LuaNginxOptions = {}): Promise<RunningLuaNginx> {
  const prefix = await mkdtemp(join(tmpdir(), 'portico-lua-'));
  // Workers run as nobody when the test runs as root: they must reach tmp/.
  await chmod(prefix, 0o755);
  for (const dir of ['logs', 'tmp', 'certs', 'run']) await mkdir(join(prefix, dir), { mode: 0o755 });
  const fake = await selfSignedCertificate(join(prefix, 'certs'), 'fake', ['ingress.local']);

  const [status = 0, http = 0, https = 0, cheapBackend = 0] = await freeLoopbackPorts(4);
  const ports: LuaNginxPorts = { status, http, https, cheapBackend };
  const conf = join(prefix, 'nginx.conf');
  await writeFile(conf, luaNginxConf({
    prefix,
    ports,
    staticUpstream: options.staticUpstream ?? { address: '127.0.0.1', port: cheapBackend },
    statusBodyBufferSize: options.statusBodyBufferSize ?? '16k',
  }));

  const errorLogPath = join(prefix, 'logs', 'error.log');
  const child: ChildProcess = spawn('setpriv', ['--pdeathsig', 'SIGTERM', '--', NGINX_BINARY,
    '-p', `${prefix}/`, '-c', conf, '-g', `daemon off; pid ${prefix}/nginx.pid;`], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', reject);
  });
  const masterPid = child.pid;
  if (masterPid === undefined) throw new Error('nginx started without a pid');

  const readErrorLog = (): string => (existsSync(errorLogPath) ? readFileSync(errorLogPath, 'utf8') : '');
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const killTimer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(killTimer);
    }
    await rm(prefix, { recursive: true, force: true });
  };

  try {
    await eventually(async () => {
      if (child.exitCode !== null) throw new Error(`nginx exited ${child.exitCode}: ${stderr}${readErrorLog()}`);
      const workers = childPids(masterPid);
      if (workers.length !== WORKER_PROCESSES) throw new Error(`nginx has ${workers.length} workers`);
      await statusRequest(status, 'GET', '/healthz-probe');
    }, { timeoutMs: 10_000, intervalMs: 25 });
  } catch (error) {
    await stop();
    throw error;
  }

  return {
    prefix,
    ports,
    masterPid,
    fakeCertificatePem: fake.cert,
    workerPids: () => childPids(masterPid),
    errorLog: readErrorLog,
    stop,
  };
}

export interface StatusResponse {
  readonly status: number;
  readonly body: string;
}

/** One request to the status server (POST bodies are sent as given). */
export function statusRequest(port: number, method: string, path: string, body?: string | Buffer): Promise<StatusResponse> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, agent: false, timeout: 10_000,
      headers: body === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${path} on :${port} timed out`)));
    req.on('error', reject);
    req.end(body);
  });
}

export interface BackendEndpoint {
  readonly address: string;
  readonly port: number;
}

export interface CookieSettings {
  readonly name?: string | null;
  readonly path?: string | null;
  readonly domain?: string | null;
  readonly maxAge?: number | null;
  readonly expires?: number | null;
  readonly secure?: boolean | null;
  readonly sameSite?: string | null;
  readonly conditionalSameSiteNone?: boolean | null;
  readonly changeOnFailure?: boolean | null;
}

export interface CanaryPolicy {
  readonly backend: string;
  readonly weight?: number | null;
  readonly weightTotal?: number | null;
  readonly header?: string | null;
  readonly headerValue?: string | null;
  readonly headerPattern?: string | null;
  readonly cookie?: string | null;
}

/** One entry of the backends document (lua/README.md). */
export interface BackendDocumentEntry {
  readonly name: string;
  readonly upstreamName?: string;
  readonly endpoints: readonly BackendEndpoint[];
  readonly loadBalance?: string;
  readonly hashBy?: string | null;
  readonly hashBySubset?: boolean | null;
  readonly hashBySubsetSize?: number | null;
  readonly affinity?: { readonly mode?: 'balanced' | 'persistent' | null; readonly cookie?: CookieSettings | null } | null;
  readonly canary?: CanaryPolicy | null;
}

export function pushBackends(statusPort: number, backends: readonly BackendDocumentEntry[]): Promise<StatusResponse> {
  return statusRequest(statusPort, 'POST', '/configuration/backends', JSON.stringify({ backends }));
}

export interface CertificatesDocument {
  readonly certificates: Readonly<Record<string, string>>;
  readonly servers: Readonly<Record<string, string>>;
  readonly default: string | null;
}

export function pushCertificates(statusPort: number, document: CertificatesDocument): Promise<StatusResponse> {
  return statusRequest(statusPort, 'POST', '/configuration/certificates', JSON.stringify(document));
}

/** Live children of `pid` (the master's workers), sorted. */
export function childPids(pid: number): number[] {
  const children: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue; // gone
    }
    // `pid (comm) state ppid ...`; comm may hold spaces and parentheses.
    const [state = '', ppid = ''] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (state !== 'Z' && Number(ppid) === pid) children.push(Number(name));
  }
  return children.sort((a, b) => a - b);
}

/** User + system CPU time of a process, in clock ticks (1/100 s on Linux). */
export function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // After `state` (index 0): utime is field 14 of the full line, index 11 here; stime follows.
  return Number(fields[11]) + Number(fields[12]);
}

/** Lua misuse that nginx only logs: global writes from request code, uncaught errors. */
export function luaProblems(errorLog: string): string[] {
  return errorLog.split('\n').filter((line) => /writing a global Lua variable|global variable written at load|lua entry thread aborted|runtime error|\[alert\]|\[crit\]|\[emerg\]/.test(line));
}
