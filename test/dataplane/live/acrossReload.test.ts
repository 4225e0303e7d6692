import assert from 'node:assert/strict';
import { test } from 'node:test';
import { acrossReload } from '../../../src/dataplane/live/acrossReload.js';
import { backend, certificate, configuration, location, server } from '../nginx/render/fixtures.js';

const endpoint = (address: string) => [{ address, port: 8080 }];

test('across a reload: the next configuration, plus what the running one serves and the next drops', () => {
  const running = configuration({
    servers: [
      server('_', []),
      server('a.example.com', [location('/', 'prefix', 'old')]),
      server('b.example.com', [], { tls: true, certificate: 'cert-b' }),
    ],
    backends: [backend('old', endpoint('10.0.0.1')), backend('shared', endpoint('10.0.0.2'))],
    certificates: [certificate('cert-b', ['b.example.com']), certificate('cert-c', ['c.example.com'])],
  });
  const next = configuration({
    servers: [
      server('_', []),
      server('a.example.com', [location('/', 'prefix', 'new')]),
      server('c.example.com', [], { tls: true, certificate: 'cert-c' }),
    ],
    backends: [backend('new', endpoint('10.0.0.3')), backend('shared', endpoint('10.0.0.4'))],
    certificates: [certificate('cert-c', ['c.example.com'])],
    defaultCertificate: 'cert-c',
  });
  const across = acrossReload(running, next);

  assert.deepEqual(
    across.backends.map(({ name, endpoints }) => [name, endpoints[0]?.address]),
    [
      ['new', '10.0.0.3'],
      ['shared', '10.0.0.4'], // the next configuration's endpoints win: they are live now
      ['old', '10.0.0.1'], // the running nginx.conf still routes to it
    ],
  );
  assert.deepEqual(
    across.certificates.map(({ id }) => id),
    ['cert-c', 'cert-b'],
  );
  assert.deepEqual(
    across.servers.map(({ hostname, locations }) => [hostname, locations[0]?.backend]),
    [
      ['_', undefined],
      ['a.example.com', 'new'],
      ['c.example.com', undefined],
      ['b.example.com', undefined], // its certificate stays served by SNI until the reload is done
    ],
  );
  assert.equal(across.defaultCertificate, 'cert-c');
  assert.equal(across.settings, next.settings);
});

test('across a reload that drops nothing: the next configuration itself', () => {
  const next = configuration({
    servers: [server('a.example.com', [location('/', 'prefix', 'web')])],
    backends: [backend('web', endpoint('10.0.0.1'))],
  });
  assert.equal(acrossReload(configuration({ backends: [backend('web', endpoint('10.0.0.9'))] }), next), next);
});
