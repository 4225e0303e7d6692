import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deprecationWarnings } from '../../../src/model/annotations/deprecatedAnnotations.js';

const PREFIX = 'nginx.ingress.kubernetes.io';

test('the old aliases and the removed names are deprecated; others, and other prefixes, are not', () => {
  assert.deepEqual(
    deprecationWarnings(
      {
        [`${PREFIX}/limit-whitelist`]: '10.0.0.0/8',
        [`${PREFIX}/secure-verify-ca-secret`]: 'ca',
        [`${PREFIX}/allowlist-source-range`]: '10.0.0.0/8',
        'example.com/whitelist-source-range': '10.0.0.0/8',
      },
      PREFIX,
    ),
    [
      `annotation ${PREFIX}/limit-whitelist is deprecated; use ${PREFIX}/limit-allowlist`,
      `annotation ${PREFIX}/secure-verify-ca-secret is deprecated and has no effect; use proxy-ssl-secret instead`,
    ],
  );
});

test('names of Object.prototype properties are not mistaken for deprecated annotations', () => {
  const annotations = Object.fromEntries(['constructor', 'toString', 'hasOwnProperty'].map((name) => [`${PREFIX}/${name}`, 'x']));
  assert.deepEqual(deprecationWarnings(annotations, PREFIX), []);
});
