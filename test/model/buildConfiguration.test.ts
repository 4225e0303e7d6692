import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Ingress, Secret } from '../../src/kube/objects.js';
import { accepted, build, ingress, locationsOf, service, slice, world } from './modelTestSupport.js';

test('one server per host plus the catch-all, which comes first and answers 404 by default', () => {
  const result = build([
    accepted(ingress('a', 'b.example', [['/', 'Prefix', 'web']])),
    accepted(ingress('b', 'a.example', [['/x', 'Exact', 'web']])),
  ]);
  assert.deepEqual(
    result.configuration.servers.map((s) => s.hostname),
    ['_', 'a.example', 'b.example'],
  );
  assert.deepEqual(locationsOf(result, '_'), ['prefix / -> 404']);
  assert.deepEqual(locationsOf(result, 'a.example'), ['prefix / -> 404', 'exact /x -> app/web:80']);
});

test('prefix paths lose trailing slashes; exact paths keep them; ImplementationSpecific is Prefix', () => {
  const result = build([
    accepted(
      ingress('a', 'h', [
        ['/foo/', 'Prefix', 'web'],
        ['/bar/', 'Exact', 'web'],
        ['/impl', 'ImplementationSpecific', 'web'],
      ]),
    ),
  ]);
  assert.deepEqual(locationsOf(result, 'h'), [
    'prefix / -> 404',
    'exact /bar -> 404',
    'exact /bar/ -> app/web:80',
    'prefix /foo -> app/web:80',
    'prefix /impl -> app/web:80',
  ]);
});

test('the same path and type on one host: the oldest Ingress wins and the other is told', () => {
  const older = ingress('older', 'h', [['/api', 'Prefix', 'one']]);
  const newer = ingress('newer', 'h', [
    ['/api/', 'Prefix', 'two'],
    ['/api', 'Exact', 'two'],
  ]);
  const result = build([accepted(newer), accepted(older)]);
  assert.deepEqual(locationsOf(result, 'h'), ['prefix / -> 404', 'exact /api -> app/two:80', 'prefix /api -> app/one:80']);
  assert.deepEqual(
    result.problems.map((p) => `${p.ingress.name} ${p.severity} ${p.reason}`),
    ['newer warning PathConflict'],
  );
});

test("an Ingress's defaultBackend is the root of its own hosts; a real / rule replaces it", () => {
  const withDefault = ingress('d', 'h', [['/api', 'Prefix', 'api']], {
    defaultBackend: { service: { name: 'fallback', port: { number: 80 } } },
  });
  assert.deepEqual(locationsOf(build([accepted(withDefault)]), 'h'), ['prefix / -> app/fallback:80', 'prefix /api -> app/api:80']);
  const root = ingress('r', 'h', [['/', 'Prefix', 'root']]);
  assert.deepEqual(locationsOf(build([accepted(withDefault), accepted(root)]), 'h'), [
    'prefix / -> app/root:80',
    'prefix /api -> app/api:80',
  ]);
});

test('an Ingress with only a defaultBackend is the catch-all; the oldest one wins', () => {
  const first = ingress('first', undefined, [], { defaultBackend: { service: { name: 'one', port: { number: 80 } } } });
  const second = ingress('second', undefined, [], { defaultBackend: { service: { name: 'two', port: { number: 80 } } } });
  const result = build([accepted(second), accepted(first)]);
  assert.deepEqual(locationsOf(result, '_'), ['prefix / -> app/one:80']);
  assert.deepEqual(
    result.problems.map((p) => `${p.ingress.name} ${p.reason}`),
    ['second CatchAllIgnored'],
  );
});

test('--default-backend-service answers unmatched hosts and paths', () => {
  const lookup = world([service('default-http', [{ port: 8080 }])]);
  const result = build([accepted(ingress('a', 'h', [['/x', 'Prefix', 'web']]))], lookup, { defaultBackendService: 'app/default-http' });
  assert.equal(result.configuration.defaultBackend, 'app/default-http:8080');
  assert.deepEqual(locationsOf(result, '_'), ['prefix / -> app/default-http:8080']);
  assert.deepEqual(locationsOf(result, 'h'), ['prefix / -> app/default-http:8080', 'prefix /x -> app/web:80']);
});

test('use-regex or rewrite-target on one Ingress turns every location of the host into a regex, longest first', () => {
  const plain = ingress('plain', 'h', [
    ['/exact', 'Exact', 'a'],
    ['/p', 'Prefix', 'a'],
  ]);
  const rewriting = ingress('rw', 'h', [['/api(/|$)(.*)', 'ImplementationSpecific', 'b']]);
  const other = ingress('other', 'o', [['/p', 'Prefix', 'a']]);
  const result = build([accepted(plain), accepted(rewriting, { target: '/$2' }), accepted(other)]);
  assert.deepEqual(locationsOf(result, 'h'), [
    'regex /api(/|$)(.*) -> app/b:80',
    'regex /exact -> app/a:80',
    'regex /p -> app/a:80',
    'regex / -> 404',
  ]);
  assert.deepEqual(locationsOf(result, 'o'), ['prefix / -> 404', 'prefix /p -> app/a:80'], 'other hosts are untouched');
});

test('endpoints: ready only, by named port, de-duplicated and sorted; unknown Service gives none', () => {
  const lookup = world(
    [
      service('web', [
        { name: 'http', port: 80 },
        { name: 'admin', port: 9000 },
      ]),
    ],
    [
      slice(
        'web',
        [['10.0.0.2'], ['10.0.0.1', true], ['10.0.0.3', false]],
        [
          { name: 'http', port: 8080 },
          { name: 'admin', port: 9090 },
        ],
      ),
      {
        ...slice('web', [['10.0.0.1']], [{ name: 'http', port: 8080 }]),
        metadata: { name: 'web-y', namespace: 'app', labels: { 'kubernetes.io/service-name': 'web' } },
      },
    ],
  );
  const named: Ingress = ingress('n', 'h', [['/a', 'Prefix', 'web']]);
  named.spec!.rules![0]!.http!.paths[0]!.backend.service!.port = { name: 'admin' };
  const result = build(
    [
      accepted(named),
      accepted(
        ingress('m', 'h', [
          ['/b', 'Prefix', 'web'],
          ['/c', 'Prefix', 'missing'],
        ]),
      ),
    ],
    lookup,
  );
  const byName = Object.fromEntries(result.configuration.backends.map((b) => [b.name, b.endpoints.map((e) => `${e.address}:${e.port}`)]));
  assert.deepEqual(byName, {
    'app/web:admin': ['10.0.0.1:9090', '10.0.0.2:9090'],
    'app/web:80': ['10.0.0.1:8080', '10.0.0.2:8080'],
    'app/missing:80': [],
  });
});

test('ExternalName Services route to their DNS name', () => {
  const lookup = world([service('ext', [{ port: 443 }], 'ExternalName', 'api.example.org')]);
  const ing = ingress('e', 'h', [['/', 'Prefix', 'ext']]);
  ing.spec!.rules![0]!.http!.paths[0]!.backend.service!.port = { number: 443 };
  const result = build([accepted(ing)], lookup);
  assert.deepEqual(result.configuration.backends[0]?.endpoints, [{ address: 'api.example.org', port: 443 }]);
});

function tlsSecret(name: string, hosts: string[]): Secret {
  const dir = mkdtempSync(join(tmpdir(), 'portico-model-cert-'));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '2',
      '-keyout',
      join(dir, 'k.pem'),
      '-out',
      join(dir, 'c.pem'),
      '-subj',
      `/CN=${hosts[0]}`,
      '-addext',
      `subjectAltName=${hosts.map((h) => `DNS:${h}`).join(',')}`,
    ],
    { stdio: 'ignore' },
  );
  const b64 = (file: string) => readFileSync(join(dir, file)).toString('base64');
  const data = { 'tls.crt': b64('c.pem'), 'tls.key': b64('k.pem') };
  rmSync(dir, { recursive: true, force: true });
  return { metadata: { name, namespace: 'app' }, type: 'kubernetes.io/tls', data };
}

test('TLS: the oldest Ingress naming a host picks its certificate; SAN mismatch or a missing secret falls back to the default', () => {
  const secrets = [tlsSecret('good', ['a.example', '*.wild.example']), tlsSecret('other', ['zzz.example'])];
  const older = ingress('older', 'a.example', [['/', 'Prefix', 'web']], { tls: [{ hosts: ['a.example'], secretName: 'good' }] });
  const newer = ingress('newer', 'b.example', [['/', 'Prefix', 'web']], {
    tls: [
      { hosts: ['a.example'], secretName: 'other' },
      { hosts: ['b.example'], secretName: 'other' },
    ],
  });
  const wild = ingress('wild', 'x.wild.example', [['/', 'Prefix', 'web']], { tls: [{ hosts: ['x.wild.example'], secretName: 'good' }] });
  const missing = ingress('missing', 'c.example', [['/', 'Prefix', 'web']], { tls: [{ hosts: ['c.example'], secretName: 'nope' }] });
  const result = build([accepted(newer), accepted(older), accepted(wild), accepted(missing)], world([], [], secrets));
  const servers = Object.fromEntries(result.configuration.servers.map((s) => [s.hostname, s]));
  assert.match(servers['a.example']?.certificate ?? '', /^app-good-/);
  assert.equal(servers['b.example']?.certificate, undefined);
  assert.equal(servers['b.example']?.tls, true);
  assert.match(servers['x.wild.example']?.certificate ?? '', /^app-good-/, 'a one-label wildcard SAN covers the host');
  assert.equal(servers['c.example']?.certificate, undefined);
  assert.equal(servers['_']?.tls, false);
  assert.deepEqual(result.problems.map((p) => `${p.ingress.name} ${p.reason}`).sort(), [
    'missing MissingTLSSecret',
    'newer CertificateHostMismatch',
  ]);
  assert.equal(result.configuration.certificates.length, 1, 'only certificates in use are carried');
});

test('the same input gives a byte-identical configuration whatever the input order', () => {
  const a = accepted(
    ingress('a', 'h', [
      ['/a', 'Prefix', 'x'],
      ['/b', 'Exact', 'y'],
    ]),
  );
  const b = accepted(ingress('b', 'g', [['/', 'Prefix', 'x']]));
  assert.equal(JSON.stringify(build([a, b]).configuration), JSON.stringify(build([b, a]).configuration));
});

test('an Exact path with a trailing slash gets a slash-less twin that routes as the longest prefix would', () => {
  const result = build([
    accepted(
      ingress('a', 'h', [
        ['/foo/', 'Exact', 'x'],
        ['/', 'Prefix', 'root'],
        ['/bar/', 'Exact', 'y'],
        ['/bar', 'Exact', 'z'],
      ]),
    ),
  ]);
  assert.deepEqual(locationsOf(result, 'h'), [
    'prefix / -> app/root:80',
    'exact /bar -> app/z:80',
    'exact /bar/ -> app/y:80',
    'exact /foo -> app/root:80',
    'exact /foo/ -> app/x:80',
  ]);
});

test('spec.tls as ingress-nginx reads it: an entry without hosts serves the rule hosts it covers; other rule hosts get the default certificate', () => {
  const secrets = [tlsSecret('shared', ['a.example'])];
  const ing = ingress('i', 'a.example', [['/', 'Prefix', 'web']], { tls: [{ secretName: 'shared' }] });
  ing.spec!.rules!.push({
    host: 'b.example',
    http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }] },
  });
  const result = build([accepted(ing)], world([], [], secrets));
  const servers = Object.fromEntries(result.configuration.servers.map((s) => [s.hostname, s]));
  assert.match(servers['a.example']?.certificate ?? '', /^app-shared-/);
  assert.equal(servers['b.example']?.tls, true, 'a rule host of an Ingress with spec.tls is a TLS host');
  assert.equal(servers['b.example']?.certificate, undefined);
});
