// SSL passthrough's hosts (model/stream/passthroughHosts.ts): which hosts, the
// backend of their `/` path, the warnings; and the annotation's parser.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseIngressAnnotations } from '../../../src/model/annotations/parseIngressAnnotations.js';
import { DEFAULT_SETTINGS } from '../../../src/model/settings/globalSettings.js';
import { ALLOW_ALL_ENDPOINTS, annotated, build, ingress, problemsOf, service, slice, world } from '../modelTestSupport.js';

const PREFIX = 'nginx.ingress.kubernetes.io';
const lookup = world(
  [
    service('vault', [{ port: 80 }]),
    service('web', [{ port: 80 }]),
    service('external', [{ port: 80 }], 'ExternalName', 'vault.example.org'),
  ],
  [slice('vault', [['10.0.0.7'], ['10.0.0.8']], [{ port: 8200 }]), slice('web', [['10.0.0.9']], [{ port: 8080 }])],
);
const PASSTHROUGH = { 'ssl-passthrough': 'true' };

test('the annotation: Go ParseBool values; anything else refuses the Ingress; false is unset', () => {
  for (const value of ['true', 'True', 'TRUE', 't', '1']) {
    const parsed = parseIngressAnnotations({ [`${PREFIX}/ssl-passthrough`]: value }, { prefix: PREFIX, settings: DEFAULT_SETTINGS });
    assert.ok(parsed.ok && parsed.value.location.sslPassthrough === true, value);
    assert.deepEqual(parsed.ok && parsed.warnings, [], value);
  }
  for (const value of ['false', '0', 'F']) {
    const parsed = parseIngressAnnotations({ [`${PREFIX}/ssl-passthrough`]: value }, { prefix: PREFIX, settings: DEFAULT_SETTINGS });
    assert.ok(parsed.ok && !('sslPassthrough' in parsed.value.location), value);
  }
  for (const value of ['yes', 'on', 'true; ssl_preread off', '"true"']) {
    const parsed = parseIngressAnnotations({ [`${PREFIX}/ssl-passthrough`]: value }, { prefix: PREFIX, settings: DEFAULT_SETTINGS });
    assert.equal(parsed.ok, false, value);
  }
});

test('a host with the annotation goes to the endpoints of its / backend, sorted by hostname; others are not passed through', () => {
  const result = build(
    [
      annotated(ingress('vault', 'vault.example.com', [['/', 'Prefix', 'vault']]), PASSTHROUGH),
      annotated(ingress('wild', '*.argo.example.com', [['/', 'Prefix', 'web']]), PASSTHROUGH),
      annotated(ingress('web', 'web.example.com', [['/', 'Prefix', 'web']]), {}),
    ],
    lookup,
    { sslPassthrough: true },
  );
  const stream = result.configuration.stream;
  assert.equal(stream?.sslPassthrough, true);
  assert.deepEqual(stream?.passthroughHosts, [
    {
      hostname: '*.argo.example.com',
      upstreamName: 'passthrough-_.argo.example.com',
      endpoints: [{ address: '10.0.0.9', port: 8080 }],
      ingress: { namespace: 'app', name: 'wild' },
    },
    {
      hostname: 'vault.example.com',
      upstreamName: 'passthrough-vault.example.com',
      endpoints: [
        { address: '10.0.0.7', port: 8200 },
        { address: '10.0.0.8', port: 8200 },
      ],
      ingress: { namespace: 'app', name: 'vault' },
    },
  ]);
  assert.deepEqual(result.problems, []);
  // The host's HTTP server stays.
  assert.ok(result.configuration.servers.some((server) => server.hostname === 'vault.example.com'));
});

test('any Ingress of the host asking is enough; the / location chooses the backend, other paths are warned about', () => {
  const result = build(
    [
      annotated(ingress('root', 'vault.example.com', [['/', 'Prefix', 'vault']]), {}),
      annotated(ingress('ui', 'vault.example.com', [['/ui', 'Prefix', 'web']]), PASSTHROUGH),
    ],
    lookup,
    { sslPassthrough: true },
  );
  const [host] = result.configuration.stream?.passthroughHosts ?? [];
  assert.equal(host?.ingress.name, 'root');
  assert.deepEqual(
    host?.endpoints.map((endpoint) => endpoint.port),
    [8200, 8200],
  );
  assert.deepEqual(problemsOf(result), ['ui SslPassthroughPathIgnored']);
  assert.match(result.problems[0]!.message, /path \/ui is served over plain HTTP only/);
});

test('a host without a / path, or without endpoints, is passed through to nothing (its connections are closed)', () => {
  const result = build([annotated(ingress('ui', 'vault.example.com', [['/ui', 'Prefix', 'web']]), PASSTHROUGH)], lookup, {
    sslPassthrough: true,
  });
  assert.deepEqual(
    result.configuration.stream?.passthroughHosts.map((host) => [host.hostname, host.endpoints]),
    [['vault.example.com', []]],
  );
  const none = build([annotated(ingress('gone', 'vault.example.com', [['/', 'Prefix', 'missing']]), PASSTHROUGH)], lookup, {
    sslPassthrough: true,
  });
  assert.deepEqual(
    none.configuration.stream?.passthroughHosts.map((host) => host.endpoints),
    [[]],
  );
});

test('an ExternalName backend: nginx stream upstreams take IP literals, so its name is left out with a warning', () => {
  const result = build([annotated(ingress('ext', 'vault.example.com', [['/', 'Prefix', 'external']]), PASSTHROUGH)], lookup, {
    sslPassthrough: true,
  });
  assert.deepEqual(
    result.configuration.stream?.passthroughHosts.map((host) => host.endpoints),
    [[]],
  );
  assert.deepEqual(problemsOf(result), ['ext SslPassthroughEndpointIgnored']);
});

test('self endpoints are refused by the backend resolution before they could become passthrough upstream servers', () => {
  const guarded = { ...ALLOW_ALL_ENDPOINTS, guard: { porticoPorts: [442], interfaceAddresses: [], refuseLoopbackEverywhere: true } };
  const self = world([service('self', [{ port: 80 }])], [slice('self', [['127.0.0.1'], ['10.0.0.1']], [{ port: 442 }])]);
  const result = build([annotated(ingress('loop', 'vault.example.com', [['/', 'Prefix', 'self']]), PASSTHROUGH)], self, {
    sslPassthrough: true,
    endpoints: guarded,
  });
  assert.deepEqual(result.configuration.stream?.passthroughHosts[0]?.endpoints, [{ address: '10.0.0.1', port: 442 }]);
});

test('without --enable-ssl-passthrough: no passthrough, a warning on each Ingress asking, the host served as before', () => {
  const ingresses = [annotated(ingress('vault', 'vault.example.com', [['/', 'Prefix', 'vault']]), PASSTHROUGH)];
  const result = build(ingresses, lookup);
  assert.equal(result.configuration.stream, undefined, 'no stream block');
  assert.deepEqual(problemsOf(result), ['vault AnnotationWarning']);
  assert.match(result.problems[0]!.message, /needs --enable-ssl-passthrough/);
  assert.deepEqual(build([annotated(ingress('plain', 'vault.example.com', [['/', 'Prefix', 'vault']]), {})], lookup).problems, []);
});
