// Real IP, the forwarded variables, the headers sent upstream and the listen
// lines (renderClientAddress.ts, renderListen.ts), with nginx -t on each rendering.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { GlobalSettings } from '../../../../src/model/settings/globalSettings.js';
import { renderNginxConf } from '../../../../src/dataplane/nginx/render/renderNginxConf.js';
import type { RenderContextOptions } from '../../../../src/dataplane/nginx/render/renderContext.js';
import { backend, configuration, location, server, testContext } from './fixtures.js';
import { missingNginx, nginxSyntaxCheck } from './nginxPrefix.js';
import { parseNginxConf, type ParsedDirective } from './nginxConfTokenizer.js';
import { appliedArgs, argsOf, locationOf, named, only, serverNamed, servers } from './parsedTree.js';

const web = backend('default-web-80', [{ address: '10.0.0.1', port: 8080 }]);

function scenario(settings: Partial<GlobalSettings>) {
  return configuration({
    servers: [server('_', [location('/', 'prefix', web.name)]), server('a.example.com', [location('/', 'prefix', web.name)])],
    backends: [web],
    settings,
  });
}

function render(settings: Partial<GlobalSettings>, context: Partial<RenderContextOptions> = {}): ParsedDirective[] {
  return parseNginxConf(renderNginxConf(scenario(settings), testContext(context)));
}

const REAL_IP = ['real_ip_header', 'real_ip_recursive', 'set_real_ip_from'];

function realIpOf(tree: ParsedDirective[]): string[][] {
  return (only(tree, 'http').children ?? []).filter((child) => REAL_IP.includes(child.name)).map((child) => [child.name, ...child.args]);
}

function mapOf(tree: ParsedDirective[], variable: string): string[][] | undefined {
  const map = named(only(tree, 'http').children, 'map').find((block) => block.args[1] === variable);
  return map && [map.args, ...(map.children ?? []).map((entry) => [entry.name, ...entry.args])];
}

function upstreamHeaders(tree: ParsedDirective[]): Map<string, string> {
  const root = locationOf(serverNamed(tree, 'a.example.com'), '/');
  // What nginx sends: the location's own list, else the http block's (it inherits them).
  return new Map(appliedArgs(tree, root, 'proxy_set_header').map(([name = '', value = '']) => [name, value]));
}

function listens(tree: ParsedDirective[], serverName: string): string[][] {
  return argsOf(serverNamed(tree, serverName), 'listen');
}

describe('real IP', () => {
  test('use-forwarded-headers: forwarded-for-header from proxy-real-ip-cidr (default every IPv4 address); off by default', () => {
    assert.deepEqual(realIpOf(render({})), []);
    assert.deepEqual(realIpOf(render({ useForwardedHeaders: true })), [
      ['real_ip_header', 'X-Forwarded-For'],
      ['real_ip_recursive', 'on'],
      ['set_real_ip_from', '0.0.0.0/0'],
    ]);
    assert.deepEqual(realIpOf(render({ enableRealIp: true, forwardedForHeader: 'X-Client', proxyRealIpCidr: ['10.0.0.0/8', '::1'] })), [
      ['real_ip_header', 'X-Client'],
      ['real_ip_recursive', 'on'],
      ['set_real_ip_from', '10.0.0.0/8'],
      ['set_real_ip_from', '::1'],
    ]);
  });

  test('use-proxy-protocol: the PROXY header; with forwarded headers, the trusted proxy decides through a header', () => {
    assert.deepEqual(realIpOf(render({ useProxyProtocol: true }))[0], ['real_ip_header', 'proxy_protocol']);
    const both = render({ useProxyProtocol: true, useForwardedHeaders: true, proxyRealIpCidr: ['192.168.0.1/32'] });
    assert.deepEqual(realIpOf(both)[0], ['real_ip_header', 'X-Forwarded-For-Proxy-Protocol']);
    const http = only(both, 'http');
    const geo = named(http.children, 'geo').find((block) => block.args[0] === '$proxy_protocol_addr');
    assert.deepEqual(
      geo?.children?.map((entry) => [entry.name, ...entry.args]),
      [
        ['default', '0'],
        ['192.168.0.1/32', '1'],
      ],
    );
    assert.deepEqual(mapOf(both, '$forwarded_for_proxy_protocol'), [
      ['$proxy_protocol_addr_trusted', '$forwarded_for_proxy_protocol'],
      ['default', '$proxy_protocol_addr'],
      ['1', '$http_x_forwarded_for'],
    ]);
    assert.deepEqual(argsOf(http, 'more_set_input_headers'), [['X-Forwarded-For-Proxy-Protocol: $forwarded_for_proxy_protocol']]);
    assert.ok(
      argsOf({ name: '', args: [], children: both }, 'load_module').some(([file]) => file?.endsWith('headers_more_filter_module.so')),
    );
  });

  test('compute-full-forwarded-for: only with use-forwarded-headers, the connecting address appended', () => {
    assert.equal(upstreamHeaders(render({ computeFullForwardedFor: true })).get('X-Forwarded-For'), '$remote_addr');
    const full = render({ computeFullForwardedFor: true, useForwardedHeaders: true });
    assert.equal(upstreamHeaders(full).get('X-Forwarded-For'), '$full_x_forwarded_for');
    assert.deepEqual(mapOf(full, '$full_x_forwarded_for'), [
      ['$http_x_forwarded_for', '$full_x_forwarded_for'],
      ['default', '$http_x_forwarded_for, $realip_remote_addr'],
      ['', '$realip_remote_addr'],
    ]);
  });
});

describe('forwarded variables', () => {
  test('use-forwarded-headers: the first X-Forwarded-Host', () => {
    assert.deepEqual(mapOf(render({ useForwardedHeaders: true }), '$best_http_host'), [
      ['$http_x_forwarded_host', '$best_http_host'],
      ['default', '$this_host'],
      ['~^([^,]+)', '$1'],
    ]);
  });

  test("use-proxy-protocol: the PROXY header's port, and its 443 is HTTPS", () => {
    const tree = render({ useProxyProtocol: true });
    assert.deepEqual(mapOf(tree, '$pass_access_scheme'), [
      ['$proxy_protocol_server_port', '$pass_access_scheme'],
      ['default', '$forwarded_scheme'],
      ['443', 'https'],
    ]);
    assert.deepEqual(mapOf(tree, '$forwarded_scheme'), [
      ['', '$forwarded_scheme'],
      ['default', '$scheme'],
    ]);
    assert.deepEqual(mapOf(tree, '$pass_server_port'), [
      ['', '$pass_server_port'],
      ['default', '$proxy_protocol_server_port'],
    ]);
  });
});

describe('headers sent upstream', () => {
  test("X-Forwarded-Scheme is nginx's; the client's X-Forwarded-For and -Host pass as X-Original-*", () => {
    const headers = upstreamHeaders(render({}));
    assert.equal(headers.get('X-Forwarded-For'), '$remote_addr');
    assert.equal(headers.get('X-Forwarded-Scheme'), '$pass_access_scheme');
    assert.equal(headers.get('X-Original-Forwarded-For'), '$http_x_forwarded_for');
    assert.equal(headers.get('X-Original-Forwarded-Host'), '$http_x_forwarded_host');
    // forwarded-for-header names where the address is read, never the header sent.
    const named = upstreamHeaders(render({ forwardedForHeader: 'X-Client-Chain' }));
    assert.equal(named.get('X-Original-Forwarded-For'), '$http_x_client_chain');
    assert.equal(named.get('X-Client-Chain'), undefined);
  });
});

describe('listen lines', () => {
  const everywhere: Partial<RenderContextOptions> = { listenAddresses: [], hostHasIpv6: true };

  test('reuse-port true: every IPv4 and IPv6 address, reuseport with default_server only; disable-ipv6; the default, no reuseport', () => {
    const tree = render({ reusePort: true }, everywhere);
    assert.deepEqual(listens(tree, '_'), [
      ['80', 'default_server', 'reuseport'],
      ['443', 'ssl', 'http2', 'default_server', 'reuseport'],
      ['[::]:80', 'default_server', 'reuseport'],
      ['[::]:443', 'ssl', 'http2', 'default_server', 'reuseport'],
    ]);
    assert.deepEqual(listens(tree, 'a.example.com'), [['80'], ['443', 'ssl', 'http2'], ['[::]:80'], ['[::]:443', 'ssl', 'http2']]);
    const defaultPort = servers(tree).find((block) => argsOf(block, 'listen').some(([address]) => address === '8181'));
    assert.deepEqual(argsOf(defaultPort!, 'listen'), [
      ['8181', 'default_server', 'reuseport'],
      ['[::]:8181', 'default_server', 'reuseport'],
    ]);
    // disable-ipv6, a host without IPv6, and Portico's default reuse-port false
    assert.deepEqual(listens(render({ disableIpv6: true }, everywhere), '_'), [
      ['80', 'default_server'],
      ['443', 'ssl', 'http2', 'default_server'],
    ]);
    assert.deepEqual(listens(render({}, { listenAddresses: [], hostHasIpv6: false }), 'a.example.com'), [['80'], ['443', 'ssl', 'http2']]);
  });

  test('bind-address: its addresses of each family; the default-server port keeps every address', () => {
    const tree = render({ bindAddress: { ipv4: ['10.1.2.3'], ipv6: ['fd00::1'] }, reusePort: true }, everywhere);
    assert.deepEqual(listens(tree, 'a.example.com'), [
      ['10.1.2.3:80'],
      ['10.1.2.3:443', 'ssl', 'http2'],
      ['[fd00::1]:80'],
      ['[fd00::1]:443', 'ssl', 'http2'],
    ]);
    const defaultPort = servers(tree).find((block) => argsOf(block, 'listen').some(([address]) => address === '8181'));
    assert.deepEqual(argsOf(defaultPort!, 'listen'), [
      ['8181', 'default_server', 'reuseport'],
      ['[::]:8181', 'default_server', 'reuseport'],
    ]);
  });

  test('use-proxy-protocol: the public listeners only, never the status or internal servers', () => {
    const tree = render({ useProxyProtocol: true });
    assert.deepEqual(listens(tree, 'a.example.com'), [
      ['127.0.0.1:80', 'proxy_protocol'],
      ['127.0.0.1:443', 'ssl', 'http2', 'proxy_protocol'],
    ]);
    const others = servers(tree).filter((block) => argsOf(block, 'server_name').length === 0);
    assert.ok(others.length >= 3, 'default-server port, status and socket servers');
    for (const block of others)
      for (const listen of argsOf(block, 'listen')) assert.ok(!listen.includes('proxy_protocol'), listen.join(' '));
  });

  // Each with a line of its own that the rendering must hold, so the check is of that line.
  const renderings: Array<[string, Partial<GlobalSettings>, string]> = [
    ['forwarded headers with full X-Forwarded-For', { useForwardedHeaders: true, computeFullForwardedFor: true }, '$full_x_forwarded_for;'],
    ['PROXY protocol', { useProxyProtocol: true }, 'real_ip_header proxy_protocol;'],
    [
      'PROXY protocol with forwarded headers',
      { useProxyProtocol: true, useForwardedHeaders: true, computeFullForwardedFor: true },
      'more_set_input_headers',
    ],
    [
      'real IP from IPv6 proxies, reuseport',
      { enableRealIp: true, proxyRealIpCidr: ['::1', 'fd00::/8'], reusePort: true },
      'set_real_ip_from fd00::/8;',
    ],
    ['real IP trusting no proxy', { enableRealIp: true, proxyRealIpCidr: [] }, 'real_ip_header X-Forwarded-For;'],
  ];
  for (const [name, settings, line] of renderings) {
    test(`nginx -t accepts: ${name}`, { skip: missingNginx }, async () => {
      const context = testContext();
      const conf = renderNginxConf(scenario(settings), context);
      assert.ok(conf.includes(line), line);
      await nginxSyntaxCheck(conf, context);
    });
  }

  test('nginx -t accepts: IPv6 and bind-address listen lines', { skip: missingNginx }, async () => {
    const context = testContext({ listenAddresses: [], hostHasIpv6: true, ports: { http: 18080, https: 18443, defaultServer: 18181 } });
    const settings = { bindAddress: { ipv4: ['127.0.0.1'], ipv6: ['::1'] }, useProxyProtocol: true, reusePort: true };
    const conf = renderNginxConf(scenario(settings), context);
    assert.ok(conf.includes('listen [::1]:18443 ssl http2 proxy_protocol default_server reuseport;'));
    await nginxSyntaxCheck(conf, context);
  });
});
