// Hostile values in the fields of error pages and default backends
// (custom-http-errors, default-backend): see renderNginxConf.hostile.test.ts.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ErrorPages } from '../../../../src/model/annotations/errorPageAnnotations.js';
import { renderNginxConf } from '../../../../src/dataplane/nginx/render/renderNginxConf.js';
import type { Configuration } from '../../../../src/model/types.js';
import { backend, configuration, location, server } from './fixtures.js';
import { parseNginxConf, type ParsedDirective } from './nginxConfTokenizer.js';
import { allDirectives, argsOf, locationOf, named } from './parsedTree.js';
import { HOSTILE_STRINGS, LONG, asText, context, serverMatching } from './hostileValues.js';

describe('hostile error page values (custom-http-errors, default-backend)', () => {
  const empty = backend('default/empty:80', []);
  /** `/` of a.example.com to a Service without endpoints, its default-backend named `name`. */
  const withDefaultBackend = (name: string, codes: number[]): Configuration => {
    const errorPages: ErrorPages = {
      codes,
      interceptUpstream: true,
      global: false,
      defaultBackendService: 'errors',
      defaultBackend: name,
    };
    const plain = location('/', 'prefix', empty.name);
    return configuration({
      servers: [server('a.example.com', [{ ...plain, annotations: { ...plain.annotations, errorPages } }])],
      backends: [empty, backend(name, [{ address: '10.0.0.2', port: 8080 }], { name: 'errors' })],
    });
  };
  const parsed = (config: Configuration): ParsedDirective => {
    const tree = parseNginxConf(renderNginxConf(config, context));
    assert.ok(!allDirectives(tree).some((found) => found.name === 'ssl_engine'));
    return serverMatching(tree, 'a.example.com');
  };

  test('a hostile default-backend name is one argument of set, in the location and in each error location', () => {
    for (const value of [...HOSTILE_STRINGS, LONG.slice(0, 3000)]) {
      const host = parsed(withDefaultBackend(value, [404, 503]));
      const upstreamNames = (block: ParsedDirective) => argsOf(block, 'set').filter(([name]) => name === '$proxy_upstream_name');
      assert.deepEqual(upstreamNames(locationOf(host, '/')), [
        ['$proxy_upstream_name', empty.name],
        ['$proxy_upstream_name', asText(value)],
      ]);
      const errorLocations = named(host.children, 'location').filter((block) => block.args[0]?.startsWith('@custom_'));
      assert.equal(errorLocations.length, 2);
      for (const block of errorLocations) {
        assert.match(block.args[0] ?? '', /^@custom_[0-9a-f]{16}_(404|503)$/);
        assert.deepEqual(upstreamNames(block), [['$proxy_upstream_name', asText(value)]]);
      }
    }
  });

  test('codes outside 400-599 or not integers are refused', () => {
    for (const code of [200, 399, 600, -404, 404.5, Number.NaN]) {
      assert.throws(() => renderNginxConf(withDefaultBackend('default/errors:80', [code]), context), /invalid custom-http-errors code/);
    }
  });
});
