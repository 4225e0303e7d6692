// Hostile values in the fields of rate limits (limit-*): see renderNginxConf.hostile.test.ts.
import assert from 'node:assert/strict';
import type { Configuration, RateLimits } from '../../../../src/model/types.js';
import { describe, test } from 'node:test';
import { buildNginxConf, renderNginxConf } from '../../../../src/dataplane/nginx/render/renderNginxConf.js';
import { configuration, ingressRef, location, server } from './fixtures.js';
import { missingNginx, nginxSyntaxCheck } from './nginxPrefix.js';
import { parseNginxConf } from './nginxConfTokenizer.js';
import { allDirectives, argsOf, expectedWords, named, skeleton } from './parsedTree.js';
import { HOSTILE_STRINGS, web, context } from './hostileValues.js';

describe('hostile Ingress names and settings in rate limits', () => {
  const limits: RateLimits = {
    connections: 2,
    requestsPerSecond: 10,
    requestsPerMinute: 60,
    burstMultiplier: 5,
    allowlist: ['10.0.0.0/8'],
    rateKilobytes: 1,
    rateAfterKilobytes: 1,
  };
  const limitedScenario = (values: readonly string[], zoneVariable: string): Configuration =>
    configuration({
      servers: [
        server('_', []),
        server(
          'limits.example',
          values.map((value, index) =>
            // The model refuses a space in a Kubernetes name (ingressNames.ts; log fields are space-separated): '_' stands for it.
            location(`/${index}`, 'exact', web.name, {
              ingress: ingressRef(value.replaceAll(' ', '_'), value.replaceAll(' ', '_')),
              annotations: { limits },
            }),
          ),
        ),
      ],
      backends: [web],
      settings: { limitConnZoneVariable: zoneVariable },
    });
  // The model refuses a zone variable that is not nginx variables; the renderer still keeps any string one argument.
  const hostileZoneVariable = '"; } ssl_engine /tmp/evil.so; #';
  const limitedHostile = limitedScenario(HOSTILE_STRINGS, hostileZoneVariable);
  const rendered = renderNginxConf(limitedHostile, context);
  const tree = parseNginxConf(rendered);
  const http = named(tree, 'http')[0] ?? { name: '', args: [] };

  test('the structure is that of benign names, and nginx reads back the builder arguments', () => {
    const benignNames = HOSTILE_STRINGS.map((_, index) => `benign${index}`);
    assert.deepEqual(skeleton(tree), skeleton(parseNginxConf(renderNginxConf(limitedScenario(benignNames, '$remote_addr'), context))));
    assert.deepEqual(tree, expectedWords(buildNginxConf(limitedHostile, context)));
  });

  test('every zone name is one safe token, distinct per Ingress, and the hostile zone variable one map value', () => {
    const zones = [...argsOf(http, 'limit_conn_zone'), ...argsOf(http, 'limit_req_zone')].map((args) => args[1] ?? '');
    assert.equal(zones.length, 3 * HOSTILE_STRINGS.length);
    assert.equal(new Set(zones).size, zones.length);
    for (const zone of zones) assert.match(zone, /^zone=[A-Za-z0-9._-]{1,300}_(conn|rps|rpm):5m$/);
    const keyMaps = named(http.children, 'map').filter((map) => map.args[1]?.startsWith('$limit_'));
    assert.equal(keyMaps.length, HOSTILE_STRINGS.length);
    for (const map of keyMaps) assert.deepEqual(map.children?.[0]?.args, [hostileZoneVariable]);
    assert.ok(!allDirectives(tree).some((directive) => directive.name === 'ssl_engine'));
  });

  test('passes nginx -t', { skip: missingNginx }, async () => {
    await nginxSyntaxCheck(rendered, context);
  });

  test('validated fields refuse: allowlist entries, counts, a zone variable with a stray "$"', () => {
    const render = (overrides: Partial<RateLimits>, zoneVariable = '$binary_remote_addr'): string =>
      renderNginxConf(
        configuration({
          servers: [server('a.example.com', [location('/', 'prefix', web.name, { annotations: { limits: { ...limits, ...overrides } } })])],
          backends: [web],
          settings: { limitConnZoneVariable: zoneVariable },
        }),
        context,
      );
    for (const value of HOSTILE_STRINGS) assert.throws(() => render({ allowlist: [value] }), /invalid CIDR/);
    const fields = ['connections', 'requestsPerSecond', 'requestsPerMinute', 'rateKilobytes'] as const;
    for (const value of [1.5, Number.POSITIVE_INFINITY]) {
      for (const field of fields) {
        assert.throws(() => render({ [field]: value }), /invalid (integer|request rate|size)/, `${field} ${value}`);
      }
    }
    // Not above 0: that limit is not rendered at all.
    for (const value of [Number.NaN, -1]) {
      for (const field of fields) {
        const directive = {
          connections: 'limit_conn ',
          requestsPerSecond: 'r/s;',
          requestsPerMinute: 'r/m;',
          rateKilobytes: 'limit_rate ',
        }[field];
        assert.ok(!render({ [field]: value }).includes(directive), `${field} ${value}`);
      }
    }
    assert.throws(() => render({}, '$host ${x} $ ${'), /malformed nginx variable reference/);
  });
});
