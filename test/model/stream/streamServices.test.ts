// The TCP/UDP services of the controller's ConfigMaps: each entry resolved
// against its Service and EndpointSlices, refused one by one with a problem
// for its ConfigMap, the others served; sorted by protocol then port.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ConfigMap, EndpointSlice, Service } from '../../../src/kube/objects.js';
import { buildStreamServices, type ConfigMapProblem, type StreamServiceSources } from '../../../src/model/stream/streamServices.js';
import type { EndpointPolicy } from '../../../src/model/backends.js';
import { ALLOW_ALL_ENDPOINTS, build, world } from '../modelTestSupport.js';

function configMap(name: string, data: Record<string, string>): ConfigMap {
  return { metadata: { name, namespace: 'ingress', resourceVersion: '1' }, data };
}

type PortSpec = { name?: string; port: number; protocol?: 'TCP' | 'UDP' };

function service(name: string, ports: PortSpec[], spec: Partial<NonNullable<Service['spec']>> = {}): Service {
  return { metadata: { name, namespace: 'app' }, spec: { ports, ...spec } };
}

function slice(serviceName: string, addresses: string[], ports: { name?: string; port: number }[], suffix = 'x'): EndpointSlice {
  return {
    metadata: { name: `${serviceName}-${suffix}`, namespace: 'app', labels: { 'kubernetes.io/service-name': serviceName } },
    addressType: addresses.some((a) => a.includes(':')) ? 'IPv6' : 'IPv4',
    endpoints: addresses.map((address) => ({ addresses: [address], conditions: {} })),
    ports,
  };
}

const SOURCES: StreamServiceSources = { tcpConfigMap: 'ingress/tcp', udpConfigMap: 'ingress/udp' };
const ECHO = service('echo', [{ port: 7000 }]);
const ECHO_SLICE = slice('echo', ['10.0.0.2', '10.0.0.1'], [{ port: 7001 }]);
const DNS = service('dns', [
  { name: 'dns-tcp', port: 53, protocol: 'TCP' },
  { name: 'dns', port: 53, protocol: 'UDP' },
]);
const DNS_SLICE = slice(
  'dns',
  ['10.0.1.1'],
  [
    { name: 'dns-tcp', port: 1053 },
    { name: 'dns', port: 2053 },
  ],
);

function run(
  tcp: Record<string, string>,
  udp: Record<string, string> = {},
  options: { policy?: EndpointPolicy; objects?: [Service[], EndpointSlice[]] } = {},
) {
  const [services, slices] = options.objects ?? [
    [ECHO, DNS],
    [ECHO_SLICE, DNS_SLICE],
  ];
  const lookup = world(services, slices, [], [configMap('tcp', tcp), configMap('udp', udp)]);
  const problems: ConfigMapProblem[] = [];
  const services_ = buildStreamServices({ sources: SOURCES, lookup, policy: options.policy ?? ALLOW_ALL_ENDPOINTS }, problems);
  return { services: services_, problems, reasons: problems.map((p) => `${p.configMap} ${p.reason}`) };
}

describe('resolution', () => {
  test('a TCP entry: the Service port by number, its ready endpoints sorted, the upstream name', () => {
    const { services, problems } = run({ '9000': 'app/echo:7000' });
    assert.deepEqual(problems, []);
    assert.deepEqual(services, [
      {
        port: 9000,
        protocol: 'TCP',
        upstreamName: 'tcp-app-echo-7000',
        service: { namespace: 'app', name: 'echo', port: '7000' },
        proxyProtocol: { decode: false, encode: false },
        endpoints: [
          { address: '10.0.0.1', port: 7001 },
          { address: '10.0.0.2', port: 7001 },
        ],
      },
    ]);
  });

  test("one port number for TCP and UDP (DNS): each protocol's own Service port, by number or name", () => {
    const { services, problems } = run({ '53': 'app/dns:53', '54': 'app/dns:dns-tcp' }, { '53': 'app/dns:53', '54': 'app/dns:dns' });
    assert.deepEqual(problems, []);
    assert.deepEqual(
      services.map((s) => [s.protocol, s.port, s.endpoints[0]?.port]),
      [
        ['TCP', 53, 1053],
        ['TCP', 54, 1053],
        ['UDP', 53, 2053],
        ['UDP', 54, 2053],
      ],
    );
  });

  test('a Service port of the other protocol is not found', () => {
    const { services, reasons } = run({ '9000': 'app/dns:dns' }, { '9000': 'app/echo:7000' });
    assert.deepEqual(services, []);
    assert.deepEqual(reasons, ['ingress/tcp ServicePortNotFound', 'ingress/udp ServicePortNotFound']);
  });

  test('unknown Services, unknown port numbers and names, no endpoints: refused one by one, the others served', () => {
    const objects: [Service[], EndpointSlice[]] = [[ECHO, service('empty', [{ port: 80 }])], [ECHO_SLICE]];
    const { services, problems } = run(
      { '9000': 'app/echo:7000', '9001': 'app/missing:80', '9002': 'app/echo:7999', '9003': 'app/echo:nope', '9004': 'app/empty:80' },
      {},
      { objects },
    );
    assert.deepEqual(
      services.map((s) => s.port),
      [9000],
    );
    assert.deepEqual(
      problems.map((p) => [p.reason, p.message]),
      [
        ['ServiceNotFound', 'TCP port 9001: Service app/missing not found; the port is not served'],
        ['ServicePortNotFound', 'TCP port 9002: Service app/echo has no TCP port "7999"; the port is not served'],
        ['ServicePortNotFound', 'TCP port 9003: Service app/echo has no TCP port "nope"; the port is not served'],
        ['NoEndpoints', 'TCP port 9004: Service app/empty has no ready endpoint for port "80"; the port is not served'],
      ],
    );
  });

  test('an ExternalName Service is refused (nginx.conf names IP addresses only)', () => {
    const objects: [Service[], EndpointSlice[]] = [
      [service('ext', [{ port: 80 }], { type: 'ExternalName', externalName: 'db.example.com' })],
      [],
    ];
    const { services, reasons } = run({ '9000': 'app/ext:80' }, {}, { objects });
    assert.deepEqual(services, []);
    assert.deepEqual(reasons, ['ingress/tcp ExternalNameService']);
  });

  test('malformed entries are refused with the ConfigMap named', () => {
    const { services, problems } = run({ '9000': 'app/echo:7000', http: 'app/echo:7000', '70000': 'app/echo:7000', '9001': 'echo:7000' });
    assert.deepEqual(
      services.map((s) => s.port),
      [9000],
    );
    assert.deepEqual(
      problems.map((p) => `${p.configMap} ${p.reason}`),
      ['ingress/tcp InvalidStreamService', 'ingress/tcp InvalidStreamService', 'ingress/tcp InvalidStreamService'],
    );
  });

  test('two spellings of one port: the first (sorted) is served, the other refused', () => {
    const { services, reasons } = run({ '9000': 'app/echo:7000', '09000': 'app/dns:dns-tcp' });
    assert.deepEqual(
      services.map((s) => s.upstreamName),
      ['tcp-app-dns-dns-tcp'],
    );
    assert.deepEqual(reasons, ['ingress/tcp DuplicatePort']);
  });

  test('PROXY fields of a UDP entry: served without them, with a problem', () => {
    const { services, reasons } = run({}, { '53': 'app/dns:dns:PROXY' });
    assert.deepEqual(services[0]?.proxyProtocol, { decode: false, encode: false });
    assert.deepEqual(reasons, ['ingress/udp ProxyProtocolIgnored']);
  });

  test('sorted by protocol, then port (numerically)', () => {
    const { services } = run({ '10000': 'app/echo:7000', '9000': 'app/echo:7000:PROXY' }, { '5353': 'app/dns:dns', '53': 'app/dns:dns' });
    assert.deepEqual(
      services.map((s) => `${s.protocol} ${s.port}`),
      ['TCP 9000', 'TCP 10000', 'UDP 53', 'UDP 5353'],
    );
    assert.deepEqual(services[0]?.proxyProtocol, { decode: true, encode: false });
  });
});

describe("Portico's own ports and addresses", () => {
  const policy: EndpointPolicy = {
    guard: { porticoPorts: [80, 443, 8181, 10246, 10254, 10247, 442], interfaceAddresses: ['10.9.9.9'], refuseLoopbackEverywhere: true },
    externalNames: true,
  };

  test('a port Portico listens on is refused, in either ConfigMap', () => {
    for (const port of policy.guard.porticoPorts) {
      const { services, reasons } = run({ [String(port)]: 'app/echo:7000' }, { [String(port)]: 'app/dns:dns' }, { policy });
      assert.deepEqual(services, [], String(port));
      assert.deepEqual(reasons, ['ingress/tcp ReservedPort', 'ingress/udp ReservedPort'], String(port));
    }
  });

  test("self endpoints are left out with a problem, this machine at another stream service's port included; the rest serve", () => {
    const objects: [Service[], EndpointSlice[]] = [[ECHO], [slice('echo', ['10.0.0.1', '127.0.0.1', '10.9.9.9'], [{ port: 9001 }])]];
    const { services, problems } = run({ '9000': 'app/echo:7000', '9001': 'app/echo:7000' }, {}, { policy, objects });
    assert.deepEqual(
      services.map((s) => [s.port, s.endpoints]),
      [
        [9000, [{ address: '10.0.0.1', port: 9001 }]],
        [9001, [{ address: '10.0.0.1', port: 9001 }]],
      ],
    );
    assert.equal(problems.length, 2);
    for (const problem of problems) {
      assert.equal(problem.reason, 'EndpointsRefused');
      assert.match(problem.message, /127\.0\.0\.1:9001 is a loopback/);
      assert.match(problem.message, /10\.9\.9\.9:9001 is this machine's address at Portico's own port 9001/);
    }
  });

  test('a service whose every endpoint is Portico itself is not served', () => {
    const objects: [Service[], EndpointSlice[]] = [[ECHO], [slice('echo', ['10.9.9.9'], [{ port: 9000 }])]];
    const { services, reasons } = run({ '9000': 'app/echo:7000' }, {}, { policy, objects });
    assert.deepEqual(services, []);
    assert.deepEqual(reasons, ['ingress/tcp EndpointsRefused', 'ingress/tcp NoEndpoints']);
  });
});

describe('in the model', () => {
  const lookup = world([ECHO], [ECHO_SLICE], [], [configMap('tcp', { '9000': 'app/echo:7000', '9001': 'app/gone:80' })]);

  test('configuration.stream holds the services, configMapProblems the refusals', () => {
    const result = build([], lookup, { streamServices: { tcpConfigMap: 'ingress/tcp' } });
    assert.deepEqual(
      result.configuration.stream?.services.map((s) => s.port),
      [9000],
    );
    assert.equal(result.configuration.stream?.sslPassthrough, false);
    assert.deepEqual(
      result.configMapProblems.map((p) => `${p.configMap} ${p.reason}`),
      ['ingress/tcp ServiceNotFound'],
    );
  });

  test('without the flags, or with no entry served, no stream', () => {
    assert.equal(build([], lookup).configuration.stream, undefined);
    assert.equal(build([], lookup, { streamServices: { udpConfigMap: 'ingress/tcp' } }).configuration.stream, undefined);
    assert.equal(build([], lookup, { streamServices: { tcpConfigMap: 'ingress/none' } }).configuration.stream, undefined);
  });
});
