// Hostile values in the string-valued keys of gzip, http tuning and the main
// context (gzip-types, gzip-disable, default-type, worker-cpu-affinity,
// debug-connections, lua-shared-dicts): see renderNginxConf.hostile.test.ts.
// The model refuses them (test/model/settings/*Settings.test.ts); put straight
// into the settings, the free-form ones stay one quoted argument each, and the
// others are refused by the renderer's raw tokens.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildNginxConf, renderNginxConf } from '../../../../src/dataplane/nginx/render/renderNginxConf.js';
import { DEFAULT_SETTINGS, type GlobalSettings } from '../../../../src/model/settings/globalSettings.js';
import type { Configuration } from '../../../../src/model/types.js';
import { configuration, server } from './fixtures.js';
import { parseNginxConf } from './nginxConfTokenizer.js';
import { allDirectives, argsOf, expectedWords, only, skeleton } from './parsedTree.js';
import { context, HOSTILE_STRINGS, LONG, web } from './hostileValues.js';

function scenario(settings: Partial<GlobalSettings>): Configuration {
  return configuration({ settings: { ...DEFAULT_SETTINGS, useGzip: true, ...settings }, servers: [server('_', [])], backends: [web] });
}

describe('hostile gzip-disable, gzip-types and default-type put into the settings', () => {
  for (const value of HOSTILE_STRINGS) {
    test(JSON.stringify(value), () => {
      const hostile = scenario({ gzipDisable: value, gzipTypes: [value, 'text/css'], defaultType: value });
      const tree = parseNginxConf(renderNginxConf(hostile, context));
      const benign = scenario({ gzipDisable: 'benign', gzipTypes: ['benign', 'text/css'], defaultType: 'benign' });
      assert.deepEqual(skeleton(tree), skeleton(parseNginxConf(renderNginxConf(benign, context))));
      assert.deepEqual(tree, expectedWords(buildNginxConf(hostile, context)));
      const http = only(tree, 'http');
      assert.deepEqual(argsOf(http, 'gzip_disable'), [[value]]);
      assert.deepEqual(argsOf(http, 'gzip_types'), [[value, 'text/css']]);
      assert.deepEqual(argsOf(http, 'default_type'), [[value]]);
      assert.ok(
        !allDirectives(tree).some(
          (directive) => directive.name === 'ssl_engine' || (directive.name === 'load_module' && directive.args[0] === 'y'),
        ),
      );
    });
  }

  test('a value longer than nginx reads is refused', () => {
    assert.throws(() => renderNginxConf(scenario({ defaultType: LONG }), context), /too long/);
  });
});

describe('hostile CPU masks, debug connections and dict names are refused by the renderer', () => {
  for (const value of [...HOSTILE_STRINGS, '0000', '', '0x3', '1'.repeat(1025)]) {
    test(JSON.stringify(value), () => {
      assert.throws(() => renderNginxConf(scenario({ workerCpuAffinity: [value] }), context), /invalid CPU mask/);
      assert.throws(() => renderNginxConf(scenario({ workerCpuAffinity: ['auto', value] }), context), /invalid CPU mask/);
      assert.throws(() => renderNginxConf(scenario({ debugConnections: [value] }), context), /invalid CIDR/);
      // A bare word such as ssl_engine is a harmless dict name; anything with nginx syntax in it is refused.
      if (!/^[A-Za-z0-9_]+$/.test(value)) {
        assert.throws(() => renderNginxConf(scenario({ luaSharedDicts: [{ name: value, kilobytes: 12 }] }), context), /invalid zone name/);
      }
    });
  }
});
