// Hostile values in the fields of server-alias, from-to-www-redirect and
// mirror-target: see renderNginxConf.hostile.test.ts. The model admits none of
// these strings; the builder must still keep each one a single argument.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Mirror } from '../../../../src/model/annotations/mirrorAnnotations.js';
import { renderNginxConf } from '../../../../src/dataplane/nginx/render/renderNginxConf.js';
import type { Configuration, Server } from '../../../../src/model/types.js';
import { configuration, location, server } from './fixtures.js';
import { asText, context, HOSTILE_STRINGS, LONG, serverMatching, web } from './hostileValues.js';
import { parseNginxConf, type ParsedDirective } from './nginxConfTokenizer.js';
import { allDirectives, argsOf, servers } from './parsedTree.js';

const MIRROR: Mirror = { target: { scheme: 'http', host: '10.0.0.9', port: 80, path: '/m' }, host: 'copy.example', requestBody: true };

const tree = (host: Server): ParsedDirective[] => {
  const parsed = parseNginxConf(renderNginxConf(configuration({ servers: [host], backends: [web] }) satisfies Configuration, context));
  assert.ok(!allDirectives(parsed).some((directive) => directive.name === 'ssl_engine'));
  return parsed;
};

const mirrored = (mirror: Mirror): Server => {
  const plain = location('/', 'prefix', web.name);
  return server('a.example.com', [{ ...plain, annotations: { ...plain.annotations, mirror } }]);
};

const mirrorLocation = (host: Server): ParsedDirective => {
  const block = serverMatching(tree(host), 'a.example.com');
  const found = (block.children ?? []).find((node) => node.name === 'location' && node.args[1]?.startsWith('/_mirror-'));
  assert.ok(found);
  return found;
};

describe('hostile server-alias, www redirect and mirror values', () => {
  test('a hostile alias is one server_name argument, matched exactly', () => {
    for (const value of [...HOSTILE_STRINGS, LONG.slice(0, 3000)]) {
      const host: Server = {
        ...server('a.example.com', [location('/', 'prefix', web.name)]),
        aliases: [{ hostname: value, certificate: undefined }],
      };
      const names = argsOf(serverMatching(tree(host), 'a.example.com'), 'server_name');
      assert.equal(names.length, 1);
      assert.equal(names[0]?.length, 2, value);
      const alias = names[0]?.[1] ?? '';
      assert.ok(new RegExp(alias.slice(1)).test(value), value);
    }
  });

  test('a hostile www redirect name is one server_name argument; a host that is not a DNS name gets no redirect server', () => {
    for (const value of HOSTILE_STRINGS) {
      const host: Server = {
        ...server('a.example.com', [location('/', 'prefix', web.name)]),
        wwwRedirect: { hostname: value, certificate: undefined },
      };
      const redirect = servers(tree(host)).filter(
        (block) => argsOf(block, 'return').length === 1 && argsOf(block, 'location').length === 0,
      );
      assert.equal(redirect.length, 1, value);
      assert.equal(argsOf(redirect[0]!, 'server_name')[0]?.length, 1);
      const hostileTarget: Server = {
        ...server(value, [location('/', 'prefix', web.name)]),
        wwwRedirect: { hostname: 'www.a.example.com', certificate: undefined },
      };
      assert.throws(() => renderNginxConf(configuration({ servers: [hostileTarget], backends: [web] }), context), /not a DNS name/);
    }
  });

  test('a hostile mirror-host is one argument of proxy_set_header Host, taken literally', () => {
    for (const value of HOSTILE_STRINGS) {
      assert.deepEqual(argsOf(mirrorLocation(mirrored({ ...MIRROR, host: value })), 'proxy_set_header'), [['Host', asText(value)]]);
    }
  });

  test('a hostile target path or host is one argument of proxy_pass, or refused when it names a variable other than $request_uri', () => {
    for (const value of HOSTILE_STRINGS) {
      for (const target of [
        { ...MIRROR.target, path: `/${value}` },
        { ...MIRROR.target, host: value },
      ]) {
        const host = mirrored({ ...MIRROR, target });
        if (value.includes('$')) {
          assert.throws(() => renderNginxConf(configuration({ servers: [host], backends: [web] }), context), /other than \$request_uri/);
          continue;
        }
        const args = argsOf(mirrorLocation(host), 'proxy_pass');
        assert.equal(args.length, 1);
        assert.equal(args[0]?.length, 1);
        assert.ok(args[0]?.[0]?.includes(value));
      }
    }
  });
});
