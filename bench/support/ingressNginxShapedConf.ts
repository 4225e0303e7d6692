// The nginx.conf ingress-nginx v1.15.1 would write for a Configuration, at its
// ConfigMap defaults: the baseline bench/render.ts loads beside Portico's file
// (issue 18). It is written from what the template (rootfs/etc/nginx/template/
// nginx.tmpl) and its helpers (internal/ingress/controller/template/template.go,
// location.go) do, not from their text:
// - one `upstream upstream_balancer` with balancer_by_lua;
// - one server per host, each listening on the HTTP and HTTPS ports, each with
//   ssl_certificate_by_lua and the fake certificate inherited from the http
//   block (so nginx builds an OpenSSL context and loads the certificate in
//   every server, as it does under ingress-nginx);
// - one location per path, in ingress-nginx's order (longest path first), a
//   Prefix path other than `/` written as two (`"/p/"` and `= "/p"`), every
//   location of a host in regex mode as `~* "^path"`; each with the body the
//   template writes at the defaults (its `set` lines, three *_by_lua_file hooks,
//   the proxy_set_header list, timeouts, buffers, proxy_pass), plus what the
//   synthetic cluster's annotations add (client_max_body_size, timeouts, allow/deny,
//   rewrite).
// Where it differs, because Debian 12's nginx 1.22 and modules are what there is:
// `listen ... http2` instead of `http2 on` (nginx 1.25.1+); no stream block
// (Debian has no stream Lua module; it is one fixed block, whatever the number of
// Ingresses); ingress-nginx's Lua files are stubs (ingressNginxLuaStubs.ts), and
// `pid`/`daemon` come from nginxArguments' -g as for Portico's file.
// Values are quoted as the template's `quote` does (Go's %q); the synthetic
// cluster's names need no more.
import { posix } from 'node:path';
import type { RenderContext } from '../../src/dataplane/nginx/render/renderContext.js';
import { serverNamesHashSizes } from '../../src/dataplane/nginx/render/serverNames.js';
import type { Backend, Configuration, Location, Server } from '../../src/model/types.js';
import { INGRESS_NGINX_LUA } from './ingressNginxLuaStubs.js';

/** ingress-nginx's name for the catch-all's backend when no --default-backend-service is given. */
const DEFAULT_BACKEND_UPSTREAM = 'upstream-default-backend';
/** The listen backlog ingress-nginx reads from net.core.somaxconn (Linux 5.4+'s default). */
const BACKLOG = 4096;
/** ingress-nginx's lua-shared-dicts defaults (internal/ingress/controller/template/configmap.go), in KiB. */
const LUA_SHARED_DICTS_KIB: Readonly<Record<string, number>> = {
  balancer_ewma: 10240,
  balancer_ewma_last_touched_at: 10240,
  balancer_ewma_locks: 1024,
  certificate_data: 20480,
  certificate_servers: 5120,
  configuration_data: 20480,
  ocsp_response_cache: 5120,
};
const SSL_CIPHERS =
  'ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305:DHE-RSA-AES256-GCM-SHA384:DHE-RSA-AES128-GCM-SHA256';
const LOG_FORMAT_UPSTREAM =
  '$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" $request_length $request_time [$proxy_upstream_name] [$proxy_alternative_upstream_name] $upstream_addr $upstream_response_length $upstream_response_time $upstream_status $req_id';

export interface ShapedConfOptions {
  /** Ports, log, temp and certificate paths, modules: the same as Portico's file, so only the shape differs. */
  readonly context: RenderContext;
  /** Where writeIngressNginxLuaStubs put ingress-nginx's Lua files (its /etc/nginx/lua). */
  readonly luaDir: string;
  /** ingress-nginx's worker-processes default: the number of CPUs. */
  readonly workerProcesses: number;
}

/** One location block as ingress-nginx writes it. */
interface ShapedLocation {
  /** What follows `location`: `"/p/"`, `= "/p"` or `~* "^p"`. */
  readonly match: string;
  /** The path as the Ingress wrote it (after updateServerLocations, the Prefix path before its trailing slash). */
  readonly ingressPath: string;
  readonly location: Location;
}

export function ingressNginxShapedConf(configuration: Configuration, options: ShapedConfOptions): string {
  const backends = new Map(configuration.backends.map((backend) => [backend.name, backend]));
  const out: string[] = [];
  mainContext(out, options);
  out.push('http {');
  httpContext(out, configuration, options);
  for (const server of configuration.servers) serverBlock(out, server, backends, options);
  statusServers(out, options);
  out.push('}', '');
  return out.join('\n');
}

function mainContext(out: string[], { context, workerProcesses }: ShapedConfOptions): void {
  const module = (file: string): string => `load_module ${quote(file)};`;
  out.push(
    // The modules the template's directives need, as Portico loads them (ngx_devel_kit first, for Lua).
    module(posix.join(context.modulesDir, 'ndk_http_module.so')),
    module(context.luaModuleFile),
    module(posix.join(context.modulesDir, 'ngx_http_headers_more_filter_module.so')),
    `worker_processes ${workerProcesses};`,
    // max-worker-open-files 0: ingress-nginx derives it from the pod's limit; nginx -t does not apply it.
    'worker_rlimit_nofile 1047552;',
    'worker_shutdown_timeout 240s ;',
    'events {',
    '    multi_accept        on;',
    '    worker_connections  16384;',
    '    use                 epoll;',
    '}',
  );
}

function httpContext(out: string[], configuration: Configuration, { context, luaDir }: ShapedConfOptions): void {
  // Raised from the ConfigMap's 64 and 1024 to fit the hosts, as ingress-nginx's controller does (nginx.go, the same sums as Portico's).
  const hashSizes = serverNamesHashSizes(
    configuration.servers.map((server) => server.hostname),
    { bucketSize: 64, maxSize: 1024 },
  );
  const lua = (file: string): string => quote(posix.join(luaDir, file));
  const { paths } = context;
  const tempRoot = posix.dirname(paths.temp.proxy);
  const dicts = Object.entries(LUA_SHARED_DICTS_KIB).map(([name, kib]) => `    lua_shared_dict ${name} ${kib / 1024}M;`);
  out.push(
    `    lua_package_path ${quote(`${luaDir}/?.lua;;`)};`,
    ...dicts,
    '    lua_shared_dict luaconfig 5m;',
    `    init_by_lua_file ${lua(INGRESS_NGINX_LUA.init)};`,
    `    init_worker_by_lua_file ${lua(INGRESS_NGINX_LUA.initWorker)};`,
    '    aio                 threads;',
    '    aio_write           on;',
    '    tcp_nopush          on;',
    '    tcp_nodelay         on;',
    '    log_subrequest      on;',
    '    reset_timedout_connection on;',
    '    keepalive_timeout  75s;',
    '    keepalive_requests 1000;',
    `    client_body_temp_path           ${quote(paths.temp.clientBody)};`,
    `    fastcgi_temp_path               ${quote(paths.temp.fastcgi)};`,
    `    proxy_temp_path                 ${quote(paths.temp.proxy)};`,
    '    client_header_buffer_size       1k;',
    '    client_header_timeout           60s;',
    '    large_client_header_buffers     4 8k;',
    '    client_body_buffer_size         8k;',
    '    client_body_timeout             60s;',
    '    http2_max_concurrent_streams    128;',
    '    types_hash_max_size             2048;',
    `    server_names_hash_max_size      ${hashSizes.maxSize};`,
    `    server_names_hash_bucket_size   ${hashSizes.bucketSize};`,
    '    map_hash_bucket_size            64;',
    '    proxy_headers_hash_max_size     512;',
    '    proxy_headers_hash_bucket_size  64;',
    '    variables_hash_bucket_size      256;',
    '    variables_hash_max_size         2048;',
    '    underscores_in_headers          off;',
    '    ignore_invalid_headers          on;',
    '    limit_req_status                503;',
    '    limit_conn_status               503;',
    `    include ${quote(paths.mimeTypes)};`,
    '    default_type text/html;',
    '    server_tokens off;',
    '    more_clear_headers Server;',
    '    uninitialized_variable_warn off;',
    `    log_format upstreaminfo ${quote(LOG_FORMAT_UPSTREAM)};`,
    '    map $request_uri $loggable {',
    '        default 1;',
    '    }',
    `    access_log ${quote(paths.accessLog)} upstreaminfo  if=$loggable;`,
    `    error_log  ${quote(paths.errorLog)} notice;`,
    '    map $http_upgrade $connection_upgrade {',
    '        default          upgrade;',
    "        ''               '';",
    '    }',
    '    map $http_x_request_id $req_id {',
    '        default   $http_x_request_id;',
    '        ""        $request_id;',
    '    }',
    '    geo $literal_dollar {',
    '        default "$";',
    '    }',
    '    server_name_in_redirect off;',
    '    port_in_redirect        off;',
    '    ssl_protocols TLSv1.2 TLSv1.3;',
    '    ssl_early_data off;',
    '    ssl_session_cache shared:SSL:10m;',
    '    ssl_session_timeout 10m;',
    '    ssl_session_tickets off;',
    '    ssl_buffer_size 4k;',
    `    ssl_ciphers '${SSL_CIPHERS}';`,
    '    ssl_prefer_server_ciphers on;',
    '    ssl_ecdh_curve auto;',
    // The default certificate (here the fake one) in the http block: every server inherits it.
    `    ssl_certificate     ${quote(paths.fakeCertificate)};`,
    `    ssl_certificate_key ${quote(paths.fakeCertificate)};`,
    '    proxy_ssl_session_reuse on;',
    '    upstream upstream_balancer {',
    '        server 0.0.0.1;',
    `        balancer_by_lua_file ${lua(INGRESS_NGINX_LUA.balancer)};`,
    '        keepalive 320;',
    '        keepalive_time 1h;',
    '        keepalive_timeout  60s;',
    '        keepalive_requests 10000;',
    '    }',
    `    proxy_cache_path ${quote(posix.join(tempRoot, 'nginx-cache-auth'))} levels=1:2 keys_zone=auth_cache:10m max_size=128m inactive=30m use_temp_path=off;`,
    '',
  );
}

function serverBlock(out: string[], server: Server, backends: ReadonlyMap<string, Backend>, options: ShapedConfOptions): void {
  const { ports } = options.context;
  const catchAll = server.hostname === '_';
  // Options valid once per port go on the catch-all's listens (commonListenOptions).
  const common = catchAll ? ` default_server reuseport backlog=${BACKLOG}` : '';
  const listens = listenAddresses(options).flatMap((address) => [
    `        listen ${address}${ports.http}${common} ;`,
    `        listen ${address}${ports.https}${common} ssl http2;`,
  ]);
  out.push('    server {', `        server_name ${quote(server.hostname)} ;`, ...listens, '        set $proxy_upstream_name "-";');
  if (catchAll) out.push('        ssl_reject_handshake off;');
  out.push(`        ssl_certificate_by_lua_file ${quote(posix.join(options.luaDir, INGRESS_NGINX_LUA.certificate))};`);
  for (const shaped of shapedLocations(server)) locationBlock(out, server, shaped, backends, options);
  if (catchAll) {
    out.push(
      '        location /healthz {',
      '            access_log off;',
      '            return 200;',
      '        }',
      '        location /nginx_status {',
      '            allow 127.0.0.1;',
      ...(options.context.hostHasIpv6 ? ['            allow ::1;'] : []),
      '            deny all;',
      '            access_log off;',
      '            stub_status on;',
      '        }',
    );
  }
  out.push('    }', '');
}

/** buildHTTPListener's addresses: every IPv4 address, and every IPv6 one where the host has IPv6. */
function listenAddresses({ context }: ShapedConfOptions): string[] {
  if (context.listenAddresses.length > 0) {
    return context.listenAddresses.map((address) => (address.includes(':') ? `[${address}]:` : `${address}:`));
  }
  return context.hostHasIpv6 ? ['', '[::]:'] : [''];
}

/**
 * The server's locations as ingress-nginx orders and splits them: sorted by
 * path (descending), then by length (longest first, stable), then each
 * Prefix path other than `/` becomes `"/p/"` followed by `= "/p"`
 * (updateServerLocations), unless an Exact location has the same path.
 */
function shapedLocations(server: Server): ShapedLocation[] {
  const enforceRegex = server.locations.some((location) => location.match === 'regex' || rewrites(location));
  const sorted = [...server.locations].sort((a, b) => (a.path > b.path ? -1 : a.path < b.path ? 1 : 0));
  sorted.sort((a, b) => b.path.length - a.path.length);
  const exactPaths = new Set(server.locations.filter((location) => location.match === 'exact').map((location) => location.path));
  const result: ShapedLocation[] = [];
  for (const location of sorted) {
    const path = sanitizeQuotedRegex(location.path);
    if (enforceRegex) {
      result.push({ match: `~* "^${path}"`, ingressPath: location.path, location });
    } else if (location.match === 'exact') {
      result.push({ match: `= "${path}"`, ingressPath: location.path, location });
    } else if (location.path === '/' || location.path.endsWith('/')) {
      result.push({ match: `"${path}"`, ingressPath: location.path, location });
    } else {
      result.push({ match: `"${path}/"`, ingressPath: location.path, location });
      if (!exactPaths.has(location.path)) result.push({ match: `= "${path}"`, ingressPath: location.path, location });
    }
  }
  return result;
}

function rewrites(location: Location): boolean {
  const target = location.annotations.rewrite.target;
  return target !== undefined && target !== location.path;
}

/** The body the template writes for one location at the defaults, with the synthetic cluster's annotations. */
function locationBlock(
  out: string[],
  server: Server,
  { match, ingressPath, location }: ShapedLocation,
  backends: ReadonlyMap<string, Backend>,
  { luaDir }: ShapedConfOptions,
): void {
  const backend = location.backend === undefined ? undefined : backends.get(location.backend);
  const service = backend?.service;
  const upstream = service === undefined ? DEFAULT_BACKEND_UPSTREAM : `${service.namespace}-${service.name}-${service.port}`;
  const { proxy, ipAccess, rewrite } = location.annotations;
  const lua = (file: string): string => quote(posix.join(luaDir, file));
  const line = (text: string): number => out.push(`            ${text}`);
  out.push(`        location ${match} {`);
  line(`set $namespace      ${quote(location.ingress?.namespace ?? '')};`);
  line(`set $ingress_name   ${quote(location.ingress?.name ?? '')};`);
  line(`set $service_name   ${quote(service?.name ?? '')};`);
  line(`set $service_port   ${quote(String(service?.port ?? ''))};`);
  line(`set $location_path  ${quote(location.ingress === undefined ? '' : ingressPath.replaceAll('$', '${literal_dollar}'))};`);
  // locationConfigForLua: what ngx_rewrite.lua reads for its redirects.
  line(`set $force_ssl_redirect "${rewrite.forceSslRedirect}";`);
  line(`set $ssl_redirect "${rewrite.sslRedirect}";`);
  line('set $force_no_ssl_redirect "false";');
  line('set $preserve_trailing_slash "false";');
  line('set $use_port_in_redirects "false";');
  line(`rewrite_by_lua_file ${lua(INGRESS_NGINX_LUA.rewrite)};`);
  line(`header_filter_by_lua_file ${lua(INGRESS_NGINX_LUA.headerFilter)};`);
  line(`log_by_lua_file ${lua(INGRESS_NGINX_LUA.log)};`);
  // enable-access-log-for-default-backend is false: the catch-all's default location logs nothing.
  if (server.hostname === '_' && location.backend === undefined) line('access_log off;');
  line('port_in_redirect off;');
  line('set $balancer_ewma_score -1;');
  line(`set $proxy_upstream_name ${quote(upstream)};`);
  line('set $proxy_host          $proxy_upstream_name;');
  line('set $pass_access_scheme  $scheme;');
  line('set $pass_server_port    $server_port;');
  line('set $best_http_host      $http_host;');
  line('set $pass_port           $pass_server_port;');
  line('set $proxy_alternative_upstream_name "";');
  for (const address of ipAccess.deny) line(`deny ${address};`);
  for (const address of ipAccess.allow) line(`allow ${address};`);
  if (ipAccess.allow.length > 0) line('deny all;');
  line(`client_max_body_size                    ${proxy.bodySize};`);
  for (const [header, value] of PROXY_HEADERS) line(`proxy_set_header ${header} ${value};`);
  line(`proxy_connect_timeout                   ${proxy.connectTimeout}s;`);
  line(`proxy_send_timeout                      ${proxy.sendTimeout}s;`);
  line(`proxy_read_timeout                      ${proxy.readTimeout}s;`);
  line(`proxy_buffering                         ${proxy.buffering};`);
  line('proxy_buffer_size                       4k;');
  line('proxy_buffers                           4 4k;');
  line('proxy_max_temp_file_size                1024m;');
  line('proxy_request_buffering                 on;');
  line('proxy_http_version                      1.1;');
  line('proxy_cookie_domain                     off;');
  line('proxy_cookie_path                       off;');
  line('proxy_next_upstream                     error timeout;');
  line('proxy_next_upstream_timeout             0;');
  line('proxy_next_upstream_tries               3;');
  // buildProxyPass: a rewrite-target other than the path rewrites before proxying.
  if (rewrites(location)) line(`rewrite "(?i)${sanitizeQuotedRegex(location.path)}" ${rewrite.target} break;`);
  line('proxy_pass http://upstream_balancer;');
  line('proxy_redirect                          off;');
  out.push('        }');
}

/** The template's proxy_set_header list at the defaults, in its order. */
const PROXY_HEADERS: readonly (readonly [string, string])[] = [
  ['Host', '$best_http_host'],
  ['Upgrade', '$http_upgrade'],
  ['Connection', '$connection_upgrade'],
  ['X-Request-ID', '$req_id'],
  ['X-Real-IP', '$remote_addr'],
  ['X-Forwarded-For', '$remote_addr'],
  ['X-Forwarded-Host', '$best_http_host'],
  ['X-Forwarded-Port', '$pass_port'],
  ['X-Forwarded-Proto', '$pass_access_scheme'],
  ['X-Forwarded-Scheme', '$pass_access_scheme'],
  ['X-Scheme', '$pass_access_scheme'],
  ['X-Original-Forwarded-For', '$http_x_forwarded_for'],
  ['X-Original-Forwarded-Host', '$http_x_forwarded_host'],
  ['Proxy', '""'],
];

/** The internal default server (--default-server-port) and the status server, as the template ends the http block. */
function statusServers(out: string[], { context, luaDir }: ShapedConfOptions): void {
  const { ports } = context;
  const lua = (file: string): string => quote(posix.join(luaDir, file));
  const defaultListens = (context.hostHasIpv6 ? ['', '[::]:'] : ['']).map(
    (address) => `        listen ${address}${ports.defaultServer} default_server reuseport backlog=${BACKLOG};`,
  );
  out.push(
    '    server {',
    ...defaultListens,
    '        set $proxy_upstream_name "internal";',
    '        access_log off;',
    '        location / {',
    '            return 404;',
    '        }',
    '    }',
    '    server {',
    `        listen 127.0.0.1:${ports.status};`,
    '        set $proxy_upstream_name "internal";',
    '        keepalive_timeout 0;',
    '        gzip off;',
    '        access_log off;',
    '        location /healthz {',
    '            return 200;',
    '        }',
    '        location /is-dynamic-lb-initialized {',
    `            content_by_lua_file ${lua(INGRESS_NGINX_LUA.isDynamicLbInitialized)};`,
    '        }',
    '        location /nginx_status {',
    '            stub_status on;',
    '        }',
    '        location /configuration {',
    '            client_max_body_size                    21M;',
    '            client_body_buffer_size                 21M;',
    '            proxy_buffering                         off;',
    `            content_by_lua_file ${lua(INGRESS_NGINX_LUA.configuration)};`,
    '        }',
    '        location / {',
    '            return 404;',
    '        }',
    '    }',
  );
}

/** The template's `quote`: Go's %q, which for these ASCII values is JSON's quoting. */
function quote(value: string): string {
  return JSON.stringify(value);
}

/** template.go's sanitizeQuotedRegex: backslashes and double quotes escaped, so a path stays inside its quotes. */
function sanitizeQuotedRegex(path: string): string {
  return path.replace(/[\\"]/g, (character) => `\\${character}`);
}
