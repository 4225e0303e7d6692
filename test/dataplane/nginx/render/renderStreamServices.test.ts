// The TCP and UDP services in the stream block: an upstream of the endpoints
// and a server on the public addresses per service, as ingress-nginx's
// template writes them, accepted by nginx -t (the proxy-stream-* bounds too);
// no stream block without services.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { renderNginxConf } from '../../../../src/dataplane/nginx/render/renderNginxConf.js';
import type { GlobalSettings } from '../../../../src/model/settings/globalSettings.js';
import { parseGlobalSettings } from '../../../../src/model/settings/parseGlobalSettings.js';
import { NO_STREAM, type StreamService } from '../../../../src/model/stream/streamTypes.js';
import type { Configuration } from '../../../../src/model/types.js';
import { configuration, server, testContext } from './fixtures.js';
import { missingNginx, nginxSyntaxCheck } from './nginxPrefix.js';
import { parseNginxConf, type ParsedDirective } from './nginxConfTokenizer.js';
import { argsOf, named, only } from './parsedTree.js';

const TCP: StreamService = {
  port: 5432,
  protocol: 'TCP',
  upstreamName: 'tcp-db-postgres-5432',
  service: { namespace: 'db', name: 'postgres', port: '5432' },
  proxyProtocol: { decode: false, encode: false },
  endpoints: [
    { address: '10.0.0.1', port: 5432 },
    { address: 'fd00::1', port: 5433 },
  ],
};
const TCP_PROXY: StreamService = {
  ...TCP,
  port: 5433,
  upstreamName: 'tcp-db-postgres-pg',
  proxyProtocol: { decode: true, encode: true },
};
const UDP: StreamService = {
  ...TCP,
  port: 53,
  protocol: 'UDP',
  upstreamName: 'udp-kube-system-dns-dns',
  service: { namespace: 'kube-system', name: 'dns', port: 'dns' },
};

function withServices(services: StreamService[], settings: Partial<GlobalSettings> = {}): Configuration {
  return { ...configuration({ servers: [server('_', [])], settings }), stream: { ...NO_STREAM, services } };
}

function streamServers(conf: string): ParsedDirective[] {
  return named(only(parseNginxConf(conf), 'stream').children, 'server');
}

describe('TCP and UDP services', () => {
  const context = testContext({ listenAddresses: ['127.0.0.1', '::1'] });
  const conf = renderNginxConf(withServices([TCP, TCP_PROXY, UDP]), context);
  const stream = only(parseNginxConf(conf), 'stream');

  test('one upstream per service with its endpoints, IPv6 in brackets', () => {
    const upstreams = named(stream.children, 'upstream');
    assert.deepEqual(
      upstreams.map((block) => [block.args, argsOf(block, 'server')]),
      [
        [['portico_tcp_5432'], [['10.0.0.1:5432'], ['[fd00::1]:5433']]],
        [['portico_tcp_5433'], [['10.0.0.1:5432'], ['[fd00::1]:5433']]],
        [['portico_udp_53'], [['10.0.0.1:5432'], ['[fd00::1]:5433']]],
      ],
    );
  });

  test("a TCP server: ingress-nginx's proxy directives with the defaults, its upstream name for the log", () => {
    const [plain] = streamServers(conf);
    assert.deepEqual(
      plain!.children!.map((node) => [node.name, ...node.args]),
      [
        ['listen', '127.0.0.1:5432'],
        ['listen', '[::1]:5432'],
        ['set', '$proxy_upstream_name', 'tcp-db-postgres-5432'],
        ['proxy_timeout', '600s'],
        ['proxy_next_upstream', 'on'],
        ['proxy_next_upstream_timeout', '600s'],
        ['proxy_next_upstream_tries', '3'],
        ['proxy_pass', 'portico_tcp_5432'],
      ],
    );
  });

  test('PROXY: decode on the listen lines, encode as proxy_protocol on', () => {
    const proxied = streamServers(conf)[1]!;
    assert.deepEqual(argsOf(proxied, 'listen'), [
      ['127.0.0.1:5433', 'proxy_protocol'],
      ['[::1]:5433', 'proxy_protocol'],
    ]);
    assert.deepEqual(argsOf(proxied, 'proxy_protocol'), [['on']]);
    assert.deepEqual(argsOf(streamServers(conf)[0]!, 'proxy_protocol'), []);
  });

  test('a UDP server listens with udp and sets proxy_responses', () => {
    const udp = streamServers(conf)[2]!;
    assert.deepEqual(argsOf(udp, 'listen'), [
      ['127.0.0.1:53', 'udp'],
      ['[::1]:53', 'udp'],
    ]);
    assert.deepEqual(argsOf(udp, 'proxy_responses'), [['1']]);
    assert.deepEqual(argsOf(udp, 'set'), [['$proxy_upstream_name', 'udp-kube-system-dns-dns']]);
  });

  test('without a fixed address: the port alone and [::] when the host has IPv6, as the HTTP listeners', () => {
    const listens = (hostHasIpv6: boolean) =>
      argsOf(streamServers(renderNginxConf(withServices([TCP]), testContext({ listenAddresses: [], hostHasIpv6 })))[0]!, 'listen');
    assert.deepEqual(listens(true), [['5432'], ['[::]:5432']]);
    assert.deepEqual(listens(false), [['5432']]);
  });

  test('passes nginx -t', { skip: missingNginx }, async () => {
    await nginxSyntaxCheck(renderNginxConf(withServices([TCP, TCP_PROXY, UDP]), testContext()), testContext());
  });
});

test('the proxy-stream-* settings, at their bounds, are rendered and pass nginx -t', { skip: missingNginx }, async () => {
  const bounds: Array<Record<string, string>> = [
    {
      'proxy-stream-timeout': '24d',
      'proxy-stream-next-upstream-timeout': '0',
      'proxy-stream-next-upstream-tries': '0',
      'proxy-stream-responses': '0',
    },
    {
      'proxy-stream-timeout': '1ms',
      'proxy-stream-next-upstream': 'false',
      'proxy-stream-next-upstream-timeout': '2147483647ms',
      'proxy-stream-next-upstream-tries': '2147483647',
      'proxy-stream-responses': '2147483647',
    },
  ];
  for (const data of bounds) {
    const { settings, problems } = parseGlobalSettings(data, { cpus: 2 });
    assert.deepEqual(problems, []);
    const conf = renderNginxConf({ ...withServices([TCP, UDP]), settings }, testContext());
    const udp = streamServers(conf)[1]!;
    assert.deepEqual(argsOf(udp, 'proxy_timeout'), [[data['proxy-stream-timeout']]]);
    assert.deepEqual(argsOf(udp, 'proxy_next_upstream_tries'), [[data['proxy-stream-next-upstream-tries']]]);
    assert.deepEqual(argsOf(udp, 'proxy_responses'), [[data['proxy-stream-responses']]]);
    assert.deepEqual(argsOf(udp, 'proxy_next_upstream'), [[data['proxy-stream-next-upstream'] === 'false' ? 'off' : 'on']]);
    await nginxSyntaxCheck(conf, testContext());
  }
});

test('no service, no stream block and no stream module', () => {
  const conf = renderNginxConf(withServices([]), testContext());
  assert.ok(!conf.includes('ngx_stream_module'));
  assert.equal(named(parseNginxConf(conf), 'stream').length, 0);
});
