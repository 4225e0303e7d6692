// Backend identity (names that cannot collide) and which EndpointSlice
// endpoints a backend gets.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { EndpointSlice, Ingress, Service } from '../../src/kube/objects.js';
import { backendName, ingressNginxUpstreamName } from '../../src/model/backends.js';
import { accepted, build, ingress, locationsOf, service, slice, world } from './modelTestSupport.js';

function inNamespace<T extends Ingress | Service | EndpointSlice>(namespace: string, object: T): T {
  return { ...object, metadata: { ...object.metadata, namespace } };
}

test('backend names: parts cannot run into each other, whatever "-" the names hold', () => {
  assert.notEqual(backendName({ namespace: 'team', name: 'x-api', port: 80 }), backendName({ namespace: 'team-x', name: 'api', port: 80 }));
  assert.notEqual(backendName({ namespace: 'a', name: 'b-c', port: 'http' }), backendName({ namespace: 'a-b', name: 'c', port: 'http' }));
  assert.equal(backendName({ namespace: 'team', name: 'x-api', port: 80 }), 'team/x-api:80');
  assert.equal(backendName({ namespace: 'team', name: 'x-api', port: 'http' }), 'team/x-api:http');
  // Unvalidated objects (manifests): the separators inside a part, and a named port spelled like a number.
  const odd = [
    { namespace: 'a/b', name: 'c', port: 80 },
    { namespace: 'a', name: 'b/c', port: 80 },
    { namespace: 'a', name: 'b:80', port: 'x' },
    { namespace: 'a', name: 'b', port: '80:x' },
    { namespace: 'a', name: 'b', port: '80' },
    { namespace: 'a', name: 'b', port: 80 },
    { namespace: 'a', name: 'b', port: '%N80' },
    { namespace: 'a', name: 'b', port: '2580' },
    { namespace: 'a', name: 'b', port: '%80' },
  ];
  assert.equal(new Set(odd.map(backendName)).size, odd.length);
});

test('backend names: stable (the same reference gives the same name) and ingress-nginx spelling kept for display', () => {
  const ref = { namespace: 'team-x', name: 'api', port: 8080 };
  assert.equal(backendName({ ...ref }), backendName(ref));
  assert.equal(ingressNginxUpstreamName(ref), 'team-x-api-8080');
});

test("team/x-api:80 and team-x/api:80 are two backends, each with its own Service's endpoints", () => {
  const older = inNamespace('team', ingress('a', 'a.example', [['/', 'Prefix', 'x-api']]));
  const newer = inNamespace('team-x', ingress('b', 'b.example', [['/', 'Prefix', 'api']]));
  const lookup = world(
    [inNamespace('team', service('x-api', [{ port: 80 }])), inNamespace('team-x', service('api', [{ port: 80 }]))],
    [
      inNamespace('team', slice('x-api', [['10.0.0.1']], [{ port: 8080 }])),
      inNamespace('team-x', slice('api', [['10.0.0.2']], [{ port: 8080 }])),
    ],
  );
  const result = build([accepted(older), accepted(newer)], lookup);
  assert.deepEqual(locationsOf(result, 'a.example'), ['prefix / -> team/x-api:80']);
  assert.deepEqual(locationsOf(result, 'b.example'), ['prefix / -> team-x/api:80']);
  const endpoints = Object.fromEntries(
    result.configuration.backends.map((b) => [b.name, b.endpoints.map((e) => `${e.address}:${e.port}`)]),
  );
  assert.deepEqual(endpoints, { 'team-x/api:80': ['10.0.0.2:8080'], 'team/x-api:80': ['10.0.0.1:8080'] });
});

test('EndpointSlice ports outside 1-65535 are left out, with a warning; the other slices of the backend stay', () => {
  const lookup = world(
    [service('web', [{ port: 80 }])],
    [
      {
        ...slice('web', [['10.0.0.1']], [{ port: 0 }]),
        metadata: { name: 'web-zero', namespace: 'app', labels: { 'kubernetes.io/service-name': 'web' } },
      },
      {
        ...slice('web', [['10.0.0.2']], [{ port: 65536 }]),
        metadata: { name: 'web-big', namespace: 'app', labels: { 'kubernetes.io/service-name': 'web' } },
      },
      slice('web', [['10.0.0.3']], [{ port: 65535 }]),
      {
        ...slice('web', [['10.0.0.4']], [{ port: 1 }]),
        metadata: { name: 'web-one', namespace: 'app', labels: { 'kubernetes.io/service-name': 'web' } },
      },
    ],
  );
  const result = build([accepted(ingress('a', 'h', [['/', 'Prefix', 'web']]))], lookup);
  assert.deepEqual(result.configuration.backends[0]?.endpoints, [
    { address: '10.0.0.3', port: 65535 },
    { address: '10.0.0.4', port: 1 },
  ]);
  assert.equal(result.warnings.length, 2);
  assert.match(result.warnings[0] ?? '', /^EndpointSlice app\/web-zero: port "0" is not from 1 to 65535/);
  assert.match(result.warnings[1] ?? '', /^EndpointSlice app\/web-big: port "65536" is not from 1 to 65535/);
});

test("EndpointSlice addresses that are not IPs of the slice's addressType are left out, the others of the slice stay", () => {
  const v4 = slice('web', [['10.0.0.1'], ['fd00::1'], ['web.example'], ['10.0.0.300']], [{ port: 8080 }]);
  const v6 = {
    ...slice('web', [['fd00::2'], ['10.0.0.2']], [{ port: 8080 }]),
    addressType: 'IPv6',
    metadata: { ...v4.metadata, name: 'web-v6' },
  };
  const fqdn = {
    ...slice('web', [['web.example']], [{ port: 8080 }]),
    addressType: 'FQDN',
    metadata: { ...v4.metadata, name: 'web-fqdn' },
  };
  const lookup = world([service('web', [{ port: 80 }])], [v4, v6, fqdn]);
  const result = build([accepted(ingress('a', 'h', [['/', 'Prefix', 'web']]))], lookup);
  assert.deepEqual(
    result.configuration.backends[0]?.endpoints.map((e) => e.address),
    ['10.0.0.1', 'fd00::2'],
  );
  assert.equal(result.warnings.length, 5);
  assert.ok(
    result.warnings.every((warning) => / is not an IP of its addressType /.test(warning)),
    result.warnings.join('\n'),
  );
});
