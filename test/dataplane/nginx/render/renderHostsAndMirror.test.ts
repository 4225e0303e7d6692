// server-alias, from-to-www-redirect and mirror-target as nginx.conf: what
// each renders, and that servers and locations without them render nothing new.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Mirror } from '../../../../src/model/annotations/mirrorAnnotations.js';
import { renderNginxConf } from '../../../../src/dataplane/nginx/render/renderNginxConf.js';
import type { Configuration, Location, Server } from '../../../../src/model/types.js';
import { configuration, location, server } from './fixtures.js';
import { context, web } from './hostileValues.js';
import { parseNginxConf } from './nginxConfTokenizer.js';
import { allDirectives, argsOf, locationOf, named, serverNamed, servers } from './parsedTree.js';

const MIRROR: Mirror = {
  target: { scheme: 'http', host: '10.0.0.9', port: 8080, path: '/copy$request_uri' },
  host: 'copy.example',
  requestBody: true,
};

const withMirror = (mirror: Mirror, path = '/'): Location => {
  const plain = location(path, 'prefix', web.name);
  return { ...plain, annotations: { ...plain.annotations, mirror } };
};

const render = (...hosts: Server[]): ReturnType<typeof parseNginxConf> =>
  parseNginxConf(renderNginxConf(configuration({ servers: hosts, backends: [web] }) satisfies Configuration, context));

test('aliases follow the hostname in server_name; wildcards become one-label regexes', () => {
  const host: Server = {
    ...server('a.example', [location('/', 'prefix', web.name)]),
    aliases: [
      { hostname: '*.wild.example', certificate: undefined },
      { hostname: 'b.example', certificate: undefined },
    ],
  };
  assert.deepEqual(argsOf(serverNamed(render(host), 'a.example'), 'server_name'), [
    ['a.example', '~^[^.]+\\.wild\\.example$', 'b.example'],
  ]);
});

test("the www redirect server answers the ConfigMap's redirect code to the host, on HTTP and HTTPS", () => {
  const host: Server = {
    ...server('a.example', [location('/', 'prefix', web.name)]),
    wwwRedirect: { hostname: 'www.a.example', certificate: undefined },
  };
  const redirect = serverNamed(render(host), 'www.a.example');
  assert.deepEqual(
    argsOf(redirect, 'listen').map((args) => args.slice(1)),
    [[], ['ssl', 'http2']],
  );
  assert.deepEqual(argsOf(redirect, 'set').at(-1), ['$www_redirect_uri', '$request_uri']);
  const trim = (redirect.children ?? []).find((node) => node.name === 'if');
  assert.deepEqual(trim?.args, ['(', '$request_uri', '~', '^(.*)/$', ')']);
  assert.deepEqual(argsOf(redirect, 'return'), [['308', '$pass_access_scheme://a.example:$pass_server_port$www_redirect_uri']]);
  assert.equal(named(redirect.children, 'location').length, 0);
});

test('a mirrored location copies each request to one internal location per distinct mirror of the server', () => {
  const other: Mirror = { ...MIRROR, requestBody: false };
  const host = server('a.example', [withMirror(MIRROR, '/'), withMirror(MIRROR, '/same'), withMirror(other, '/nobody')]);
  const block = serverNamed(render(host), 'a.example');
  const internals = (block.children ?? []).filter(
    (node) => node.name === 'location' && node.args[0] === '=' && node.args[1]?.startsWith('/_mirror-'),
  );
  assert.equal(internals.length, 2);
  const [withBody, withoutBody] = [MIRROR, other].map((mirror) => {
    const path = argsOf(locationOf(block, mirror === MIRROR ? '/' : '/nobody/'), 'mirror')[0]?.[0] ?? '';
    assert.match(path, /^\/_mirror-[0-9a-f]{16}$/);
    return locationOf(block, '=', path);
  });
  assert.deepEqual(argsOf(locationOf(block, '/'), 'mirror_request_body'), [['on']]);
  assert.deepEqual(argsOf(locationOf(block, '/nobody/'), 'mirror_request_body'), [['off']]);
  assert.deepEqual(argsOf(locationOf(block, '/same/'), 'mirror'), argsOf(locationOf(block, '/'), 'mirror'));
  assert.ok(withBody && withoutBody);
  assert.deepEqual(argsOf(withBody, 'internal'), [[]]);
  assert.deepEqual(argsOf(withBody, 'proxy_set_header'), [['Host', 'copy.example']]);
  assert.deepEqual(argsOf(withBody, 'proxy_pass'), [['http://10.0.0.9:8080/copy$request_uri']]);
  assert.deepEqual(argsOf(withoutBody, 'proxy_pass_request_body'), [['off']]);
  assert.deepEqual(argsOf(withoutBody, 'proxy_set_header'), [
    ['Host', 'copy.example'],
    ['Content-Length', ''],
  ]);
});

test('without these annotations nothing new is rendered', () => {
  const tree = render(server('a.example', [location('/', 'prefix', web.name)]));
  const names = new Set(allDirectives(tree).map((node) => node.name));
  for (const name of ['mirror', 'mirror_request_body']) assert.equal(names.has(name), false, name);
  assert.equal(servers(tree).filter((block) => argsOf(block, 'server_name')[0]?.[0] === 'www.a.example').length, 0);
  assert.deepEqual(argsOf(serverNamed(tree, 'a.example'), 'server_name'), [['a.example']]);
});
