// Hostile values in the ConfigMap's TLS keys (settings/keys/tlsSettings.ts): see
// renderNginxConf.hostile.test.ts. The model refuses all of them; here the
// renderer is fed them anyway, and must either write one argument nginx reads
// back literally (ssl-ecdh-curve) or refuse to render (sizes, times, file ids).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildNginxConf, renderNginxConf } from '../../../../src/dataplane/nginx/render/renderNginxConf.js';
import type { GlobalSettings } from '../../../../src/model/settings/globalSettings.js';
import type { Configuration } from '../../../../src/model/types.js';
import { configuration, server } from './fixtures.js';
import { parseNginxConf } from './nginxConfTokenizer.js';
import { allDirectives, argsOf, expectedWords, only, skeleton } from './parsedTree.js';
import { context, HOSTILE_STRINGS, LONG } from './hostileValues.js';

const scenario = (settings: Partial<GlobalSettings>, tlsFiles?: Configuration['tlsFiles']): Configuration => ({
  ...configuration({ servers: [server('_', []), server('a.example', [])], settings }),
  tlsFiles,
});

describe('hostile ssl-ecdh-curve values', () => {
  for (const value of [...HOSTILE_STRINGS, LONG.slice(0, 3000)]) {
    test(`${JSON.stringify(value.slice(0, 40))}: one literal argument, the structure of a benign value`, () => {
      const hostile = scenario({ sslEcdhCurve: value });
      const tree = parseNginxConf(renderNginxConf(hostile, context));
      assert.deepEqual(argsOf(only(tree, 'http'), 'ssl_ecdh_curve'), [[value]]);
      assert.deepEqual(skeleton(tree), skeleton(parseNginxConf(renderNginxConf(scenario({ sslEcdhCurve: 'X25519' }), context))));
      assert.deepEqual(tree, expectedWords(buildNginxConf(hostile, context)));
      assert.ok(!allDirectives(tree).some((directive) => directive.name === 'ssl_engine'));
    });
  }
});

describe('hostile sizes, times and file ids are refused by the builder, never rendered', () => {
  for (const value of [...HOSTILE_STRINGS, LONG, '10m;', '1h 1h']) {
    test(JSON.stringify(value.slice(0, 40)), () => {
      assert.throws(() => renderNginxConf(scenario({ sslSessionCacheSize: value }), context));
      assert.throws(() => renderNginxConf(scenario({ sslBufferSize: value }), context));
      assert.throws(() => renderNginxConf(scenario({ sslSessionTimeout: value }), context));
      assert.throws(() => renderNginxConf(scenario({}, { dhParam: value, sessionTicketKey: undefined }), context));
      assert.throws(() => renderNginxConf(scenario({}, { dhParam: undefined, sessionTicketKey: value }), context));
    });
  }
});
