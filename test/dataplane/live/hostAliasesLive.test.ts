// Aliases and www redirects in the live state: their certificates by SNI name,
// and that a host asking for them (or for a mirror) is never served by the
// catch-all's pending route, which would answer none of them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { liveStateOf } from '../../../src/dataplane/live/liveState.js';
import { pendingRoutes } from '../../../src/dataplane/live/pendingRoutes.js';
import type { LocationAnnotations, Server } from '../../../src/model/types.js';
import { backend, certificate, configuration, location, server } from '../nginx/render/fixtures.js';

const web = backend('shop-web-80', [{ address: '10.0.0.1', port: 8080 }]);

test("an alias and a www redirect name get the host's certificate when it covers them; the others the default one", () => {
  const host: Server = {
    ...server('a.example.com', [location('/', 'prefix', web.name)], { tls: true, certificate: 'a-cert' }),
    aliases: [
      { hostname: 'b.example.com', certificate: 'a-cert' },
      { hostname: 'uncovered.example.org', certificate: undefined },
    ],
    wwwRedirect: { hostname: 'www.a.example.com', certificate: 'a-cert' },
  };
  const config = configuration({
    servers: [server('_', []), host],
    backends: [web],
    certificates: [certificate('a-cert', ['a.example.com'])],
  });
  const { servers } = JSON.parse(liveStateOf(config, new Set()).certificates) as { servers: Record<string, string> };
  assert.deepEqual(servers, { 'a.example.com': 'a-cert', 'b.example.com': 'a-cert', 'www.a.example.com': 'a-cert' });
});

test('a new host with server-alias, from-to-www-redirect or a mirror waits for its reload', () => {
  const plain = location('/', 'prefix', web.name);
  const withPart = (part: Partial<LocationAnnotations>) => ({ ...plain, annotations: { ...plain.annotations, ...part } });
  const config = configuration({
    servers: [
      server('_', []),
      server('plain.example.com', [plain]),
      server('alias.example.com', [withPart({ serverAlias: ['other.example.com'] })]),
      server('www.example.com', [withPart({ fromToWwwRedirect: true })]),
      server('mirror.example.com', [
        withPart({ mirror: { target: { scheme: 'http', host: '10.0.0.9', port: 80, path: '' }, host: '10.0.0.9', requestBody: true } }),
      ]),
    ],
    backends: [web],
  });
  assert.deepEqual(Object.keys(pendingRoutes(config, new Set(['_'])).hosts), ['plain.example.com']);
});
