// Hostile hostnames of passthrough hosts (renderSslPassthrough.ts): see
// renderNginxConf.hostile.test.ts. A hostname reaches the stream block's maps
// and upstream names; each must stay one map key matching that name only, and
// the upstream names stay valid, so one host's name never breaks the rendering.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { renderNginxConf } from '../../../../src/dataplane/nginx/render/renderNginxConf.js';
import { passthroughUpstreamName } from '../../../../src/model/stream/passthroughHosts.js';
import { NO_STREAM } from '../../../../src/model/stream/streamTypes.js';
import type { Configuration } from '../../../../src/model/types.js';
import { configuration, ingressRef, location, server } from './fixtures.js';
import { context, HOSTILE_STRINGS, LONG, web } from './hostileValues.js';
import { parseNginxConf } from './nginxConfTokenizer.js';
import { allDirectives, named, only } from './parsedTree.js';
import { missingNginx, nginxSyntaxCheck } from './nginxPrefix.js';

const HOSTNAMES = [
  ...HOSTILE_STRINGS,
  LONG.slice(0, 3000),
  'default',
  'hostnames',
  'include',
  'volatile',
  '*.a.example.com',
  '_.a.example.com',
];

function rendered(hostnames: readonly string[]): string {
  const passthroughHosts = hostnames.map((hostname) => ({
    hostname,
    upstreamName: passthroughUpstreamName(hostname),
    endpoints: [{ address: '10.0.0.7', port: 8443 }],
    ingress: ingressRef('default', 'evil'),
  }));
  const conf: Configuration = {
    ...configuration({ servers: [server('_', [location('/', 'prefix', web.name)])], backends: [web] }),
    stream: { ...NO_STREAM, sslPassthrough: true, passthroughHosts },
  };
  return renderNginxConf(conf, context);
}

describe('hostile passthrough hostnames', () => {
  test('each is one map key matching that name only, and gets an upstream of its own with a valid name', () => {
    const tree = parseNginxConf(rendered(HOSTNAMES));
    assert.ok(
      !allDirectives(tree).some(
        (directive) =>
          ['ssl_engine', 'load_module', 'include'].includes(directive.name) &&
          directive.args.length > 0 &&
          directive.args[0] !== '/etc/nginx/mime.types' &&
          !directive.args[0]!.endsWith('.so'),
      ),
    );
    const stream = only(tree, 'stream');
    const route = named(stream.children, 'map').find((map) => map.args[1] === '$portico_tls_route');
    assert.ok(route);
    const keys = (route.children ?? []).filter((entry) => entry.name !== 'default');
    assert.equal(keys.length, HOSTNAMES.length);
    for (const [index, hostname] of HOSTNAMES.entries()) {
      const entry = keys[index]!;
      assert.equal(entry.args.length, 1, hostname);
      const key = entry.name;
      const matches = (name: string): boolean => (key.startsWith('~*') ? new RegExp(key.slice(2), 'i').test(name) : key === name);
      assert.ok(matches(hostname), hostname);
      if (hostname === '*.a.example.com') {
        // A wildcard: one label, as its server_name.
        assert.ok(matches('b.a.example.com') && !matches('c.b.a.example.com') && !matches('a.example.com'));
      } else {
        assert.ok(!matches(`x${hostname}`) && !matches(`${hostname}x`), hostname);
      }
    }
    const upstreams = named(stream.children, 'upstream').map((block) => block.args[0]);
    assert.equal(new Set(upstreams).size, upstreams.length);
    assert.equal(upstreams.length, HOSTNAMES.length + 3);
  });

  test('nginx -t accepts them all', { skip: missingNginx }, async () => {
    await nginxSyntaxCheck(rendered(HOSTNAMES), context);
  });
});
