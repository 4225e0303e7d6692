// Which object each rendered line is traced to: a line nginx refuses must name
// the Ingress whose location it is in, the settings for what the ConfigMap
// shapes, and Portico for the rest.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { originOfLine } from '../../../../src/dataplane/nginx/render/configOrigins.js';
import { renderNginxConf, renderTracedNginxConf } from '../../../../src/dataplane/nginx/render/renderNginxConf.js';
import { annotations, backend, configuration, ingressRef, location, server, testContext } from './fixtures.js';

test("location lines are their Ingress's, settings lines the settings', the rest Portico's", () => {
  const api = { ...location('/api', 'prefix', 'shop-api-80', { ingress: ingressRef('shop', 'api') }) };
  const snippeted = {
    ...api,
    path: '/s',
    ingress: ingressRef('shop', 'snippet'),
    annotations: { ...annotations(), configurationSnippet: 'add_header X-S "1";' },
  };
  const model = configuration({
    servers: [server('_', []), server('shop.example.com', [api, snippeted])],
    backends: [backend('shop-api-80', [])],
  });
  const context = testContext();
  const { config, origins } = renderTracedNginxConf(model, context);
  assert.equal(config.bytes.toString(), renderNginxConf(model, context));
  const lines = config.bytes.toString().split('\n');
  const originOf = (pattern: RegExp): unknown[] => {
    const numbers = lines.flatMap((line, index) => (pattern.test(line) ? [index + 1] : []));
    assert.ok(numbers.length > 0, `no line matches ${pattern}`);
    return [...new Set(numbers.map((number) => JSON.stringify(originOfLine(config, origins, number))))].map(
      (text) => JSON.parse(text) as unknown,
    );
  };
  const shop = (name: string) => [{ kind: 'ingress', ingress: ingressRef('shop', name) }];
  assert.deepEqual(originOf(/location "\/api\/"/), shop('api'));
  assert.deepEqual(originOf(/location = "\/api"/), shop('api'));
  assert.deepEqual(originOf(/add_header X-S "1";/), shop('snippet'));
  assert.deepEqual(originOf(/^\s*worker_processes /), [{ kind: 'settings' }]);
  // The http block's own (the configuration server sets its own, which are Portico's).
  assert.deepEqual(originOf(/^ keepalive_timeout /), [{ kind: 'settings' }]);
  assert.deepEqual(originOf(/^\s*listen /), [{ kind: 'portico' }]);
  assert.deepEqual(originOf(/^\s*load_module /), [{ kind: 'portico' }]);
  // The generated "/" of each server is Portico's.
  assert.deepEqual(originOf(/^\s*location "\/" \{/), [{ kind: 'portico' }]);
  assert.equal(originOfLine(config, origins, 0), undefined);
  assert.equal(originOfLine(config, origins, lines.length + 1), undefined);
});
