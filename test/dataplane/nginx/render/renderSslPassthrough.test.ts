// SSL passthrough's rendering (renderSslPassthrough.ts, and its parts in
// renderListen.ts and renderClientAddress.ts): the stream server on the HTTPS
// port, the TLS servers behind it on 127.0.0.1, the client address for each
// combination of the real-IP keys; nginx -t on each rendering.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { GlobalSettings } from '../../../../src/model/settings/globalSettings.js';
import type { PassthroughHost } from '../../../../src/model/stream/streamTypes.js';
import { NO_STREAM } from '../../../../src/model/stream/streamTypes.js';
import type { Configuration } from '../../../../src/model/types.js';
import { renderNginxConf } from '../../../../src/dataplane/nginx/render/renderNginxConf.js';
import type { RenderContextOptions } from '../../../../src/dataplane/nginx/render/renderContext.js';
import { backend, configuration, ingressRef, location, server, testContext } from './fixtures.js';
import { missingNginx, nginxSyntaxCheck } from './nginxPrefix.js';
import { parseNginxConf, type ParsedDirective } from './nginxConfTokenizer.js';
import { argsOf, named, only, serverNamed } from './parsedTree.js';

const web = backend('default-web-80', [{ address: '10.0.0.1', port: 8080 }]);
const PORTS = { http: 18080, https: 18443, defaultServer: 18181, status: 18246, sslPassthroughProxy: 18442 };

function host(hostname: string, endpoints: PassthroughHost['endpoints']): PassthroughHost {
  return { hostname, upstreamName: `passthrough-${hostname.replace('*', '_')}`, endpoints, ingress: ingressRef('default', 'vault') };
}

const HOSTS = [
  host('vault.example.com', [
    { address: '10.0.0.7', port: 8200 },
    { address: 'fd00::7', port: 8200 },
  ]),
  host('*.argo.example.com', [{ address: '10.0.0.8', port: 443 }]),
  // A name map would read as its `default` keyword.
  host('default', [{ address: '10.0.0.9', port: 443 }]),
  host('empty.example.com', []),
];

function scenario(settings: Partial<GlobalSettings>, passthrough: boolean): Configuration {
  return {
    ...configuration({
      servers: [
        server('_', [location('/', 'prefix', web.name)]),
        server('a.example.com', [location('/', 'prefix', web.name)]),
        server('vault.example.com', [location('/', 'prefix', web.name)]),
      ],
      backends: [web],
      settings,
    }),
    stream: passthrough ? { ...NO_STREAM, sslPassthrough: true, passthroughHosts: HOSTS } : NO_STREAM,
  };
}

function rendered(settings: Partial<GlobalSettings> = {}, passthrough = true, context: Partial<RenderContextOptions> = {}) {
  const ctx = testContext({ ports: PORTS, ...context });
  const conf = renderNginxConf(scenario(settings, passthrough), ctx);
  return { conf, context: ctx, tree: parseNginxConf(conf) };
}

function entries(block: ParsedDirective): string[][] {
  return (block.children ?? []).map((child) => [child.name, ...child.args]);
}

function streamBlock(tree: ParsedDirective[]): ParsedDirective {
  return only(tree, 'stream');
}

function streamMap(tree: ParsedDirective[], variable: string): string[][] {
  const map = named(streamBlock(tree).children, 'map').find((block) => block.args[1] === variable);
  assert.ok(map, `map ${variable}`);
  return entries(map);
}

function upstream(tree: ParsedDirective[], name: string): string[][] {
  const block = named(streamBlock(tree).children, 'upstream').find((candidate) => candidate.args[0] === name);
  assert.ok(block, `upstream ${name}`);
  return entries(block);
}

function streamServers(tree: ParsedDirective[]): ParsedDirective[] {
  return named(streamBlock(tree).children, 'server');
}

const REAL_IP = ['real_ip_header', 'real_ip_recursive', 'set_real_ip_from'];

function realIpOf(tree: ParsedDirective[]): string[][] {
  return (only(tree, 'http').children ?? []).filter((child) => REAL_IP.includes(child.name)).map((child) => [child.name, ...child.args]);
}

function httpMap(tree: ParsedDirective[], variable: string): string[][] | undefined {
  const map = named(only(tree, 'http').children, 'map').find((block) => block.args[1] === variable);
  return map && [map.args, ...entries(map)];
}

describe('SSL passthrough: the stream block', () => {
  test('without --enable-ssl-passthrough: no stream block, the TLS servers keep the public HTTPS port', () => {
    const { tree } = rendered({}, false);
    assert.deepEqual(named(tree, 'stream'), []);
    assert.deepEqual(argsOf(serverNamed(tree, 'a.example.com'), 'listen'), [['127.0.0.1:18080'], ['127.0.0.1:18443', 'ssl', 'http2']]);
  });

  test('the HTTPS port is a stream server routing by SNI; the TLS servers listen on 127.0.0.1:<proxy port> with proxy_protocol', () => {
    const { tree } = rendered();
    assert.deepEqual(argsOf(serverNamed(tree, 'a.example.com'), 'listen'), [
      ['127.0.0.1:18080'],
      ['127.0.0.1:18442', 'ssl', 'http2', 'proxy_protocol'],
    ]);
    assert.deepEqual(argsOf(serverNamed(tree, '_'), 'listen'), [
      ['127.0.0.1:18080', 'default_server'],
      ['127.0.0.1:18442', 'ssl', 'http2', 'proxy_protocol', 'default_server'],
    ]);
    // The passthrough host's plain-HTTP server stays.
    assert.deepEqual(argsOf(serverNamed(tree, 'vault.example.com'), 'listen')[0], ['127.0.0.1:18080']);

    assert.deepEqual(streamMap(tree, '$portico_tls_route'), [
      ['default', 'portico_tls_termination'],
      ['vault.example.com', 'portico_ssl_passthrough'],
      ['~*^[^.]+\\.argo\\.example\\.com$', 'portico_ssl_passthrough'],
      ['~*^default$', 'portico_ssl_passthrough'],
      ['empty.example.com', 'portico_ssl_passthrough'],
    ]);
    // A host without endpoints is not listed: its connections go to the closing server.
    assert.deepEqual(streamMap(tree, '$portico_passthrough_backend'), [
      ['default', 'portico_passthrough_closed'],
      ['vault.example.com', 'passthrough-vault.example.com'],
      ['~*^[^.]+\\.argo\\.example\\.com$', 'passthrough-_.argo.example.com'],
      ['~*^default$', 'passthrough-default'],
    ]);
    assert.deepEqual(upstream(tree, 'portico_tls_termination'), [['server', '127.0.0.1:18442']]);
    assert.deepEqual(upstream(tree, 'passthrough-vault.example.com'), [
      ['server', '10.0.0.7:8200'],
      ['server', '[fd00::7]:8200'],
    ]);
    assert.deepEqual(
      named(streamBlock(tree).children, 'upstream').map((block) => block.args[0]),
      [
        'portico_tls_termination',
        'portico_ssl_passthrough',
        'portico_passthrough_closed',
        'passthrough-vault.example.com',
        'passthrough-_.argo.example.com',
        'passthrough-default',
      ],
    );

    const [publicServer, passthroughServer, closedServer] = streamServers(tree);
    assert.deepEqual(entries(publicServer!), [
      ['listen', '127.0.0.1:18443'],
      ['ssl_preread', 'on'],
      ['proxy_protocol', 'on'],
      ['proxy_pass', '$portico_tls_route'],
    ]);
    assert.deepEqual(entries(passthroughServer!), [
      ['listen', 'unix:run/passthrough.sock', 'proxy_protocol'],
      ['set_real_ip_from', 'unix:'],
      ['ssl_preread', 'on'],
      ['proxy_pass', '$portico_passthrough_backend'],
    ]);
    assert.deepEqual(entries(closedServer!), [
      ['listen', 'unix:run/passthrough-closed.sock'],
      ['return', ''],
    ]);
  });

  test('the stream server listens on the public addresses of the HTTP listeners (IPv6 too), with reuse-port', () => {
    const { tree } = rendered({ reusePort: true }, true, { listenAddresses: [], hostHasIpv6: true });
    assert.deepEqual(argsOf(streamServers(tree)[0]!, 'listen'), [
      ['18443', 'reuseport'],
      ['[::]:18443', 'reuseport'],
    ]);
    assert.deepEqual(argsOf(serverNamed(tree, 'a.example.com'), 'listen'), [
      ['18080'],
      ['[::]:18080'],
      ['127.0.0.1:18442', 'ssl', 'http2', 'proxy_protocol'],
    ]);
  });

  test('use-proxy-protocol: the stream server reads a PROXY header (proxy-protocol-header-timeout, real IP from proxy-real-ip-cidr)', () => {
    const { tree } = rendered({ useProxyProtocol: true, proxyRealIpCidr: ['10.0.0.0/8'], proxyProtocolHeaderTimeoutMs: 2500 });
    assert.deepEqual(entries(streamServers(tree)[0]!), [
      ['listen', '127.0.0.1:18443', 'proxy_protocol'],
      ['proxy_protocol_timeout', '2500ms'],
      ['set_real_ip_from', '10.0.0.0/8'],
      ['ssl_preread', 'on'],
      ['proxy_protocol', 'on'],
      ['proxy_pass', '$portico_tls_route'],
    ]);
    // The hop's listen line has proxy_protocol once.
    assert.deepEqual(argsOf(serverNamed(tree, 'a.example.com'), 'listen'), [
      ['127.0.0.1:18080', 'proxy_protocol'],
      ['127.0.0.1:18442', 'ssl', 'http2', 'proxy_protocol'],
    ]);
    // 0: no deadline of Portico's (nginx's default).
    assert.deepEqual(
      argsOf(streamServers(rendered({ useProxyProtocol: true, proxyProtocolHeaderTimeoutMs: 0 }).tree)[0]!, 'proxy_protocol_timeout'),
      [],
    );
  });
});

describe('SSL passthrough: the client address of the TLS servers behind the hop', () => {
  test('defaults: the hop is trusted for its PROXY header, nothing else (plain HTTP keeps its connection address)', () => {
    assert.deepEqual(realIpOf(rendered({}, false).tree), []);
    assert.deepEqual(realIpOf(rendered().tree), [
      ['real_ip_header', 'proxy_protocol'],
      ['real_ip_recursive', 'on'],
      ['set_real_ip_from', '127.0.0.1'],
    ]);
  });

  test('use-proxy-protocol: both kinds of connection carry a PROXY header; the hop is trusted besides proxy-real-ip-cidr', () => {
    for (const extra of [{}, { enableRealIp: true }]) {
      assert.deepEqual(realIpOf(rendered({ useProxyProtocol: true, proxyRealIpCidr: ['10.0.0.0/8'], ...extra }).tree), [
        ['real_ip_header', 'proxy_protocol'],
        ['real_ip_recursive', 'on'],
        ['set_real_ip_from', '10.0.0.0/8'],
        ['set_real_ip_from', '127.0.0.1'],
      ]);
    }
  });

  test('use-forwarded-headers or enable-real-ip without the PROXY protocol: the hop PROXY address decides, plain HTTP keeps forwarded-for-header', () => {
    for (const keys of [{ useForwardedHeaders: true }, { enableRealIp: true }]) {
      const { tree } = rendered({ ...keys, proxyRealIpCidr: ['10.0.0.0/8'] });
      assert.deepEqual(realIpOf(tree), [
        ['real_ip_header', 'X-Forwarded-For-Proxy-Protocol'],
        ['real_ip_recursive', 'on'],
        ['set_real_ip_from', '10.0.0.0/8'],
        ['set_real_ip_from', '127.0.0.1'],
      ]);
      assert.deepEqual(httpMap(tree, '$portico_hop_forwarded_for'), [
        ['$proxy_protocol_addr', '$portico_hop_forwarded_for'],
        ['default', '$forwarded_for_proxy_protocol'],
        ['', '$http_x_forwarded_for'],
      ]);
      assert.deepEqual(httpMap(tree, '$forwarded_for_proxy_protocol'), [
        ['$proxy_protocol_addr_trusted', '$forwarded_for_proxy_protocol'],
        ['default', '$proxy_protocol_addr'],
        ['1', '$http_x_forwarded_for'],
      ]);
      assert.deepEqual(argsOf(only(tree, 'http'), 'more_set_input_headers'), [
        ['X-Forwarded-For-Proxy-Protocol: $portico_hop_forwarded_for'],
      ]);
      assert.ok(/load_module "\S+\/ngx_http_headers_more_filter_module\.so";/.test(rendered({ ...keys }).conf));
    }
  });

  test('use-forwarded-headers with the PROXY protocol: as without passthrough, the hop trusted besides', () => {
    const { tree } = rendered({ useForwardedHeaders: true, useProxyProtocol: true, proxyRealIpCidr: ['10.0.0.0/8'] });
    assert.deepEqual(realIpOf(tree).slice(-2), [
      ['set_real_ip_from', '10.0.0.0/8'],
      ['set_real_ip_from', '127.0.0.1'],
    ]);
    assert.equal(httpMap(tree, '$portico_hop_forwarded_for'), undefined);
    assert.deepEqual(argsOf(only(tree, 'http'), 'more_set_input_headers'), [
      ['X-Forwarded-For-Proxy-Protocol: $forwarded_for_proxy_protocol'],
    ]);
  });

  test('compute-full-forwarded-for: the connecting address of a TLS connection is the hop PROXY address', () => {
    const { tree } = rendered({ useForwardedHeaders: true, computeFullForwardedFor: true });
    assert.deepEqual(httpMap(tree, '$portico_connecting_addr'), [
      ['$proxy_protocol_addr', '$portico_connecting_addr'],
      ['default', '$proxy_protocol_addr'],
      ['', '$realip_remote_addr'],
    ]);
    assert.deepEqual(httpMap(tree, '$full_x_forwarded_for')?.slice(1), [
      ['default', '$http_x_forwarded_for, $portico_connecting_addr'],
      ['', '$portico_connecting_addr'],
    ]);
  });

  test('X-Forwarded-Port of a TLS connection is the public port the client reached, not the hop port', () => {
    assert.deepEqual(httpMap(rendered().tree, '$portico_public_server_port'), [
      ['$server_port', '$portico_public_server_port'],
      ['default', '$server_port'],
      ['18442', '$proxy_protocol_server_port'],
    ]);
    assert.deepEqual(httpMap(rendered().tree, '$pass_server_port')?.slice(1), [['default', '$portico_public_server_port']]);
    assert.deepEqual(httpMap(rendered({}, false).tree, '$pass_server_port')?.slice(1), [['default', '$server_port']]);
  });

  const COMBINATIONS: Array<Partial<GlobalSettings>> = [
    {},
    { useProxyProtocol: true, proxyProtocolHeaderTimeoutMs: 86_400_000 },
    { useForwardedHeaders: true, computeFullForwardedFor: true },
    { enableRealIp: true },
    { useForwardedHeaders: true, useProxyProtocol: true, computeFullForwardedFor: true },
    { enableRealIp: true, useProxyProtocol: true, reusePort: true },
  ];
  for (const settings of COMBINATIONS) {
    test(`nginx -t accepts passthrough with ${JSON.stringify(settings)}`, { skip: missingNginx }, async () => {
      const { conf, context } = rendered(settings, true, { listenAddresses: [], hostHasIpv6: true });
      await nginxSyntaxCheck(conf, context);
    });
  }
});
