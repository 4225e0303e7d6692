// Hostile values in the fields of FastCGI (fastcgi-index, fastcgi-params-configmap's entries): see renderNginxConf.hostile.test.ts.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastCgi } from '../../../../src/model/annotations/fastCgiAnnotations.js';
import { renderNginxConf } from '../../../../src/dataplane/nginx/render/renderNginxConf.js';
import type { Configuration } from '../../../../src/model/types.js';
import { configuration, location, server } from './fixtures.js';
import { missingNginx, nginxSyntaxCheck } from './nginxPrefix.js';
import { parseNginxConf } from './nginxConfTokenizer.js';
import { allDirectives, argsOf, locationOf } from './parsedTree.js';
import { HOSTILE_STRINGS, context, serverMatching, web } from './hostileValues.js';

/** A FCGI location; fixtures.ts's annotations() has no FastCGI field, so it is added here. */
function withFastCgi(fastCgi: Partial<FastCgi>): Configuration {
  const php = location('/', 'prefix', web.name, { annotations: { backendProtocol: 'FCGI' } });
  const full: FastCgi = { index: undefined, paramsFrom: undefined, params: [], denied: undefined, ...fastCgi };
  return configuration({
    servers: [server('php.example.com', [{ ...php, annotations: { ...php.annotations, fastCgi: full } }])],
    backends: [web],
  });
}

const rootLocation = (config: Configuration) => {
  const tree = parseNginxConf(renderNginxConf(config, context));
  assert.ok(!allDirectives(tree).some((found) => found.name === 'ssl_engine' || (found.name === 'load_module' && found.args[0] === 'y')));
  return locationOf(serverMatching(tree, 'php.example.com'), '/');
};

describe('hostile FastCGI values', () => {
  test('a hostile fastcgi-index is one argument of fastcgi_index', () => {
    for (const value of HOSTILE_STRINGS) assert.deepEqual(argsOf(rootLocation(withFastCgi({ index: value })), 'fastcgi_index'), [[value]]);
  });

  test('a hostile parameter name is one argument, and a hostile value one argument or refused for a malformed variable reference', () => {
    for (const value of HOSTILE_STRINGS) {
      const params = argsOf(rootLocation(withFastCgi({ params: [[value, 'x']] })), 'fastcgi_param');
      assert.deepEqual(params.at(-1), [value, 'x']);
      const config = withFastCgi({ params: [['X', value]] });
      if (value.includes('$')) assert.throws(() => renderNginxConf(config, context), /malformed nginx variable reference/);
      else assert.deepEqual(argsOf(rootLocation(config), 'fastcgi_param').at(-1), ['X', value]);
    }
  });

  test('passes nginx -t with hostile index and names and a value with variables', { skip: missingNginx }, async () => {
    const params: Array<[string, string]> = HOSTILE_STRINGS.map((value, index) => [value, `/srv/${index}$fastcgi_script_name`]);
    await nginxSyntaxCheck(renderNginxConf(withFastCgi({ index: HOSTILE_STRINGS[0], params }), context), context);
  });
});
