// Endpoints that are Portico itself, however spelled (issue 12's security
// review: ExternalName `0.0.0.0` at the status port served every tenant's
// private keys; the proxy's own port as a backend made a request loop).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolveExternalNames } from '../../src/dataplane/resolveExternalNames.js';
import { parseAddress, selfEndpointReason, type EndpointGuard } from '../../src/model/selfAddress.js';
import type { Configuration } from '../../src/model/types.js';
import { accepted, ALLOW_ALL_ENDPOINTS, build, ingress, problemsOf, service, slice, world } from './modelTestSupport.js';

const STATUS_PORT = 10246;
const HTTP_PORT = 80;
const MANIFEST_MODE: EndpointGuard = {
  porticoPorts: [HTTP_PORT, 443, 8181, STATUS_PORT, 10254],
  interfaceAddresses: ['198.18.0.1', 'fd00::1'],
  refuseLoopbackEverywhere: false,
};
const KUBERNETES_MODE: EndpointGuard = { ...MANIFEST_MODE, refuseLoopbackEverywhere: true };

test('parseAddress reads every IPv4 form inet_aton accepts and every IPv6 spelling', () => {
  const cases: [string, number[] | undefined][] = [
    ['127.0.0.1', [127, 0, 0, 1]],
    ['0', [0, 0, 0, 0]],
    ['127.1', [127, 0, 0, 1]],
    ['127.0.1', [127, 0, 0, 1]],
    ['2130706433', [127, 0, 0, 1]],
    ['0x7f.1', [127, 0, 0, 1]],
    ['0x7F000001', [127, 0, 0, 1]],
    ['017700000001', [127, 0, 0, 1]],
    ['0177.0.0.01', [127, 0, 0, 1]],
    ['10.1.2.3', [10, 1, 2, 3]],
    // Around the plain dotted quad's fast path: a leading zero is octal, a part above 255 is refused.
    ['010.0.0.1', [8, 0, 0, 1]],
    ['10.0.0.010', [10, 0, 0, 8]],
    ['255.255.255.255', [255, 255, 255, 255]],
    ['1.2.3.256', undefined],
    ['1.2.3.0400', undefined],
    ['1.2.3.4 ', undefined],
    ['256.0.0.1', undefined],
    ['4294967296', undefined],
    ['08.0.0.1', undefined],
    ['1.2.3.4.5', undefined],
    ['localhost', undefined],
    ['api.example.org', undefined],
    ['', undefined],
  ];
  for (const [text, bytes] of cases) assert.deepEqual(parseAddress(text), bytes, text);
  const v6 = (last: number[]) => [...new Array<number>(16 - last.length).fill(0), ...last];
  const ipv6: [string, number[] | undefined][] = [
    ['::', v6([])],
    ['::1', v6([1])],
    ['[::1]', v6([1])],
    ['0:0:0:0:0:0:0:1', v6([1])],
    ['::ffff:127.0.0.1', v6([0xff, 0xff, 127, 0, 0, 1])],
    ['::ffff:7f00:1', v6([0xff, 0xff, 127, 0, 0, 1])],
    ['0:0:0:0:0:ffff:7f00:1', v6([0xff, 0xff, 127, 0, 0, 1])],
    ['::FFFF:0.0.0.0', v6([0xff, 0xff, 0, 0, 0, 0])],
    ['::127.0.0.1', v6([127, 0, 0, 1])],
    ['fe80::1%eth0', [0xfe, 0x80, ...new Array<number>(13).fill(0), 1]],
    ['1::2::3', undefined],
    ['1:2:3:4:5:6:7:8:9', undefined],
    ['::ffff:127.1', undefined],
    ['::g', undefined],
  ];
  for (const [text, bytes] of ipv6) assert.deepEqual(parseAddress(text), bytes, text);
});

const SELF_SPELLINGS = [
  '0',
  '0.0.0.0',
  '127.0.0.1',
  '127.1',
  '2130706433',
  '0x7f.1',
  '017700000001',
  '::',
  '::1',
  '[::1]',
  '::ffff:127.0.0.1',
  '::ffff:7f00:1',
  '0:0:0:0:0:ffff:7f00:1',
  '::ffff:0.0.0.0',
  '::127.0.0.1',
  '127.255.255.254',
];

test("every spelling of loopback or unspecified is refused at each of Portico's ports", () => {
  for (const address of SELF_SPELLINGS) {
    for (const port of MANIFEST_MODE.porticoPorts) {
      assert.ok(selfEndpointReason({ address, port }, MANIFEST_MODE), `${address}:${port} refused`);
    }
  }
});

test('manifest mode proxies to loopback at other ports; unspecified is refused at any port; Kubernetes mode refuses all loopback', () => {
  assert.equal(selfEndpointReason({ address: '127.0.0.1', port: 8080 }, MANIFEST_MODE), undefined);
  assert.equal(selfEndpointReason({ address: '::1', port: 8080 }, MANIFEST_MODE), undefined);
  for (const address of ['0.0.0.0', '0', '::', '::ffff:0.0.0.0']) {
    assert.match(selfEndpointReason({ address, port: 8080 }, MANIFEST_MODE) ?? '', /unspecified/, address);
  }
  for (const address of SELF_SPELLINGS) assert.ok(selfEndpointReason({ address, port: 8080 }, KUBERNETES_MODE), address);
});

test("the machine's own interface addresses are refused at Portico's ports only; other addresses never", () => {
  assert.ok(selfEndpointReason({ address: '198.18.0.1', port: STATUS_PORT }, KUBERNETES_MODE));
  assert.ok(selfEndpointReason({ address: '::ffff:198.18.0.1', port: HTTP_PORT }, KUBERNETES_MODE));
  assert.ok(selfEndpointReason({ address: 'fd00:0::1', port: HTTP_PORT }, KUBERNETES_MODE));
  assert.equal(selfEndpointReason({ address: '198.18.0.1', port: 8080 }, KUBERNETES_MODE), undefined);
  for (const address of ['10.0.0.1', '198.18.1.2', 'fd00::2', '::ffff:10.0.0.1']) {
    for (const port of [HTTP_PORT, STATUS_PORT, 8080])
      assert.equal(selfEndpointReason({ address, port }, KUBERNETES_MODE), undefined, `${address}:${port}`);
  }
  assert.match(selfEndpointReason({ address: 'localhost', port: 8080 }, MANIFEST_MODE) ?? '', /not an IP address/);
});

test('the model refuses self endpoints of EndpointSlices and ExternalName literals, with a Warning on each Ingress; other backends keep theirs', () => {
  const lookup = world(
    [
      service('tenant', [{ port: 80 }]),
      service('hostile', [{ port: 80 }]),
      service('zero', [{ port: STATUS_PORT }], 'ExternalName', '0.0.0.0'),
    ],
    [
      slice('tenant', [['10.0.0.1']], [{ port: 8080 }]),
      slice('hostile', [['127.0.0.1'], ['10.0.0.9']], [{ port: HTTP_PORT }]),
      // An IPv4-mapped address is an IPv6 slice's (an IPv4 slice's non-IPv4 addresses are dropped before this check).
      { ...slice('hostile', [['::ffff:7f00:1']], [{ port: HTTP_PORT }]), addressType: 'IPv6' },
    ],
  );
  const zero = ingress('zero', 'z', [['/', 'Prefix', 'zero']]);
  zero.spec!.rules![0]!.http!.paths[0]!.backend.service!.port = { number: STATUS_PORT };
  const result = build(
    [
      accepted(ingress('tenant', 't', [['/', 'Prefix', 'tenant']])),
      accepted(ingress('hostile', 'h', [['/', 'Prefix', 'hostile']])),
      accepted(zero),
    ],
    lookup,
    { endpoints: { guard: MANIFEST_MODE, externalNames: true } },
  );
  const endpoints = Object.fromEntries(result.configuration.backends.map((backend) => [backend.name, backend.endpoints]));
  assert.deepEqual(endpoints, {
    'app/tenant:80': [{ address: '10.0.0.1', port: 8080 }],
    'app/hostile:80': [{ address: '10.0.0.9', port: HTTP_PORT }],
    [`app/zero:${STATUS_PORT}`]: [],
  });
  assert.deepEqual(problemsOf(result).sort(), ['hostile EndpointRefused', 'zero EndpointRefused']);
  const hostile = result.problems.find((problem) => problem.ingress.name === 'hostile');
  assert.match(
    hostile?.message ?? '',
    /^backend app\/hostile:80 \(Service app\/hostile\) refused: endpoint 127\.0\.0\.1:80 is Portico's own port 80; endpoint ::ffff:7f00:1:80 is/,
  );
  assert.equal(hostile?.severity, 'warning');
});

test('--disable-svc-external-name: ExternalName Services give no endpoints, and their Ingresses are told', () => {
  const lookup = world(
    [service('ext', [{ port: 80 }], 'ExternalName', 'api.example.org'), service('web', [{ port: 80 }])],
    [slice('web', [['10.0.0.1']], [{ port: 80 }])],
  );
  const ingresses = [accepted(ingress('e', 'h', [['/', 'Prefix', 'ext']])), accepted(ingress('w', 'w', [['/', 'Prefix', 'web']]))];
  const allowed = build(ingresses, lookup, { endpoints: ALLOW_ALL_ENDPOINTS });
  assert.deepEqual(allowed.configuration.backends.find((b) => b.name === 'app/ext:80')?.endpoints, [
    { address: 'api.example.org', port: 80 },
  ]);
  const disabled = build(ingresses, lookup, { endpoints: { ...ALLOW_ALL_ENDPOINTS, externalNames: false } });
  assert.deepEqual(
    disabled.configuration.backends.map((b) => [b.name, b.endpoints.length]),
    [
      ['app/ext:80', 0],
      ['app/web:80', 1],
    ],
  );
  assert.deepEqual(problemsOf(disabled), ['e EndpointRefused']);
  assert.match(disabled.problems[0]!.message, /ExternalName.*--disable-svc-external-name/);
});

test('names are resolved and checked like literals: localhost and names resolving to loopback are dropped, as is a non-IP answer', async () => {
  const configuration = build(
    [accepted(ingress('e', 'h', [['/', 'Prefix', 'ext']]))],
    world([service('ext', [{ port: 80 }], 'ExternalName', 'x')]),
  ).configuration;
  const named = (address: string): Configuration => ({
    ...configuration,
    backends: configuration.backends.map((b) => ({ ...b, endpoints: [{ address, port: HTTP_PORT }] })),
  });
  const answers: Record<string, string[]> = {
    localhost: ['127.0.0.1', '::1'],
    'rebind.example': ['0.0.0.0', '10.0.0.7'],
    '127.1': ['127.0.0.1'],
    'odd.example': ['not-an-address', '10.0.0.8'],
  };
  const resolver = async (host: string) => answers[host] ?? [];
  const refused: string[] = [];
  const endpointsOf = async (name: string) =>
    (await resolveExternalNames(named(name), MANIFEST_MODE, (_backend, message) => refused.push(message), resolver)).backends[0]!.endpoints;
  assert.deepEqual(await endpointsOf('localhost'), []);
  assert.deepEqual(await endpointsOf('rebind.example'), [{ address: '10.0.0.7', port: HTTP_PORT }]);
  assert.deepEqual(await endpointsOf('127.1'), []);
  assert.deepEqual(await endpointsOf('odd.example'), [{ address: '10.0.0.8', port: HTTP_PORT }]);
  assert.equal(refused.length, 4, refused.join('\n'));
  assert.match(refused[0]!, /^localhost resolves to endpoint 127\.0\.0\.1:80/);
});
