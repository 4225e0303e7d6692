// The limit directives as ingress-nginx's template writes them, once per
// Ingress at the http level and in each of its locations, and nothing for the rest.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { renderNginxConf } from '../../../../src/dataplane/nginx/render/renderNginxConf.js';
import type { Configuration, IngressRef, Location, RateLimits } from '../../../../src/model/types.js';
import type { GlobalSettings } from '../../../../src/model/settings/globalSettings.js';
import { backend, configuration, ingressRef, location, server, testContext } from './fixtures.js';
import { missingNginx, nginxSyntaxCheck } from './nginxPrefix.js';
import { parseNginxConf, type ParsedDirective } from './nginxConfTokenizer.js';
import { allDirectives, argsOf, locationOf, named, only, serverNamed } from './parsedTree.js';

const web = backend('default-web-80', [{ address: '10.0.0.1', port: 8080 }]);
const context = testContext();

const NO_LIMIT: RateLimits = {
  connections: 0,
  requestsPerSecond: 0,
  requestsPerMinute: 0,
  burstMultiplier: 5,
  allowlist: [],
  rateKilobytes: 0,
  rateAfterKilobytes: 0,
};

function limited(path: string, ingress: IngressRef, limits: Partial<RateLimits> | undefined): Location {
  const plain = location(path, 'exact', web.name, { ingress });
  return limits === undefined ? plain : { ...plain, annotations: { ...plain.annotations, limits: { ...NO_LIMIT, ...limits } } };
}

function render(locations: Location[], settings: Partial<GlobalSettings> = {}): { conf: string; tree: ParsedDirective[] } {
  const config: Configuration = configuration({
    servers: [server('_', []), server('limits.example', locations)],
    backends: [web],
    settings,
  });
  const conf = renderNginxConf(config, context);
  return { conf, tree: parseNginxConf(conf) };
}

const LIMIT_DIRECTIVES = ['limit_conn', 'limit_conn_status', 'limit_req', 'limit_req_status', 'limit_rate', 'limit_rate_after'];
const ZONE_DIRECTIVES = ['limit_conn_zone', 'limit_req_zone'];

const limitsIn = (block: ParsedDirective): string[][] =>
  (block.children ?? []).filter((child) => LIMIT_DIRECTIVES.includes(child.name)).map((child) => [child.name, ...child.args]);

const web1 = ingressRef('default', 'web');

describe('one Ingress with every limit', () => {
  const { conf, tree } = render(
    [
      limited('/a', web1, {
        connections: 2,
        requestsPerSecond: 10,
        requestsPerMinute: 600,
        burstMultiplier: 3,
        allowlist: ['10.0.0.0/8', '::1'],
      }),
      limited('/b', web1, {
        connections: 2,
        requestsPerSecond: 10,
        requestsPerMinute: 600,
        burstMultiplier: 3,
        allowlist: ['10.0.0.0/8', '::1'],
      }),
    ],
    { limitReqStatusCode: 429, limitConnStatusCode: 430 },
  );
  const http = only(tree, 'http');
  const [zone] = argsOf(http, 'limit_conn_zone');
  const key = zone?.[0] ?? '';
  const zonePrefix = /^zone=(default_web_[0-9a-f]{16})_conn:5m$/.exec(zone?.[1] ?? '')?.[1] ?? '';

  test('its zones: 5m each (as ingress-nginx), named after the Ingress, keyed by its map, once however many locations', () => {
    assert.match(key, /^\$limit_[0-9a-f]{16}$/);
    assert.ok(zonePrefix !== '', JSON.stringify(zone));
    assert.deepEqual(argsOf(http, 'limit_conn_zone'), [[key, `zone=${zonePrefix}_conn:5m`]]);
    assert.deepEqual(argsOf(http, 'limit_req_zone'), [
      [key, `zone=${zonePrefix}_rps:5m`, 'rate=10r/s'],
      [key, `zone=${zonePrefix}_rpm:5m`, 'rate=600r/m'],
    ]);
  });

  test('the allowlist: a geo marks its addresses, the map gives them an empty key, the others the ConfigMap variable', () => {
    const geo = named(http.children, 'geo').find((block) => block.args[0]?.startsWith('$limit_allowlisted_'));
    assert.ok(geo);
    assert.deepEqual(
      geo.children?.map((entry) => [entry.name, ...entry.args]),
      [
        ['10.0.0.0/8', '1'],
        ['::1', '1'],
      ],
    );
    const map = named(http.children, 'map').find((block) => block.args[1] === key);
    assert.deepEqual(map?.args, [geo.args[0], key]);
    assert.deepEqual(
      map?.children?.map((entry) => [entry.name, ...entry.args]),
      [
        ['default', '$binary_remote_addr'],
        ['1', ''],
      ],
    );
  });

  test('each location: connections, then per second, then per minute, burst = rate × multiplier, nodelay, the status codes', () => {
    const host = serverNamed(tree, 'limits.example');
    for (const path of ['/a', '/b']) {
      assert.deepEqual(limitsIn(locationOf(host, '=', path)), [
        ['limit_conn', `${zonePrefix}_conn`, '2'],
        ['limit_conn_status', '430'],
        ['limit_req', `zone=${zonePrefix}_rps`, 'burst=30', 'nodelay'],
        ['limit_req', `zone=${zonePrefix}_rpm`, 'burst=1800', 'nodelay'],
        ['limit_req_status', '429'],
      ]);
    }
  });

  test('passes nginx -t without a warning', { skip: missingNginx }, async () => {
    const output = await nginxSyntaxCheck(conf, context);
    assert.ok(!output.includes('[warn]'), output);
  });
});

test('without an allowlist the map has a constant source and only the ConfigMap variable', () => {
  const { tree } = render([limited('/a', web1, { requestsPerSecond: 1 })], { limitConnZoneVariable: '$http_x_api_key' });
  const http = only(tree, 'http');
  const key = argsOf(http, 'limit_req_zone')[0]?.[0];
  const map = named(http.children, 'map').find((block) => block.args[1] === key);
  assert.deepEqual(map?.args, ['', key]);
  assert.deepEqual(
    map?.children?.map((entry) => [entry.name, ...entry.args]),
    [['default', '$http_x_api_key']],
  );
  assert.ok(!named(http.children, 'geo').some((block) => block.args[0]?.startsWith('$limit_')));
  assert.deepEqual(argsOf(http, 'limit_conn_zone'), []);
});

test('zones are per Ingress: two Ingresses get two sets, each location names its own', () => {
  const other = ingressRef('team', 'api');
  const { tree } = render([limited('/a', web1, { requestsPerSecond: 5 }), limited('/c', other, { requestsPerSecond: 5 })]);
  const zones = argsOf(only(tree, 'http'), 'limit_req_zone');
  assert.equal(zones.length, 2);
  assert.notEqual(zones[0]?.[0], zones[1]?.[0], 'each its own key map');
  const host = serverNamed(tree, 'limits.example');
  const used = ['/a', '/c'].map((path) => argsOf(locationOf(host, '=', path), 'limit_req')[0]?.[0]);
  assert.deepEqual(used.sort(), zones.map((args) => (args[1] ?? '').replace(/:5m$/, '')).sort());
  assert.ok(used.some((zone) => zone?.startsWith('zone=team_api_')));
});

test(
  "limit-burst-multiplier 0: no burst parameter (nginx refuses burst=0); an allowlist of everything is no duplicate of geo's default",
  { skip: missingNginx },
  async () => {
    const { conf, tree } = render([limited('/a', web1, { requestsPerSecond: 7, burstMultiplier: 0, allowlist: ['0.0.0.0/0', '::/0'] })]);
    assert.deepEqual(argsOf(locationOf(serverNamed(tree, 'limits.example'), '=', '/a'), 'limit_req')[0]?.slice(1), ['nodelay']);
    const output = await nginxSyntaxCheck(conf, context);
    assert.ok(!output.includes('[warn]'), output);
  },
);

test('bandwidth only: limit_rate_after and limit_rate in kilobytes, no zone', () => {
  const { tree } = render([limited('/a', web1, { rateKilobytes: 100, rateAfterKilobytes: 1024 })]);
  assert.deepEqual(limitsIn(locationOf(serverNamed(tree, 'limits.example'), '=', '/a')), [
    ['limit_rate_after', '1024k'],
    ['limit_rate', '100k'],
  ]);
  assert.deepEqual(
    allDirectives(tree).filter((directive) => ZONE_DIRECTIVES.includes(directive.name)),
    [],
  );
});

test('locations and configurations without limits render no limit directive, map or geo of the limits', () => {
  const { conf, tree } = render([
    limited('/a', web1, { requestsPerSecond: 5 }),
    limited('/plain', ingressRef('default', 'plain'), undefined),
  ]);
  assert.deepEqual(limitsIn(locationOf(serverNamed(tree, 'limits.example'), '=', '/plain')), []);
  const without = render([limited('/plain', ingressRef('default', 'plain'), undefined)]);
  assert.ok(!/limit_|\$limit/.test(without.conf));
  assert.match(conf, /limit_req_zone/);
});
