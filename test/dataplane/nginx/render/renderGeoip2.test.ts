// use-geoip2 as rendered: the module and one geoip2 block per database with
// ingress-nginx's variables, accepted by nginx -t with real (tiny) MaxMind DB
// files; nothing without use-geoip2 or without databases.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { geoip2Databases } from '../../../../src/dataplane/nginx/geoip2Databases.js';
import { renderNginxConf } from '../../../../src/dataplane/nginx/render/renderNginxConf.js';
import type { GlobalSettings } from '../../../../src/model/settings/globalSettings.js';
import { tinyMmdb } from '../../../support/tinyMmdb.js';
import { configuration, location, server, testContext } from './fixtures.js';
import { missingNginx, nginxSyntaxCheck } from './nginxPrefix.js';
import { parseNginxConf } from './nginxConfTokenizer.js';
import { argsOf, named, only } from './parsedTree.js';
import { web } from './hostileValues.js';

let directory: string;
before(async () => {
  directory = await mkdtemp(join(tmpdir(), 'portico-geoip2-'));
  await writeFile(
    join(directory, 'GeoLite2-City.mmdb'),
    tinyMmdb('GeoLite2-City', { country: { iso_code: 'ZZ' }, city: { names: { en: 'Testville' } } }),
  );
  await writeFile(join(directory, 'GeoLite2-ASN.mmdb'), tinyMmdb('GeoLite2-ASN', { autonomous_system_number: 64512 }));
});
after(async () => {
  await rm(directory, { recursive: true, force: true });
});

const files = (): readonly string[] => {
  const found = geoip2Databases(directory);
  assert.ok('files' in found, JSON.stringify(found));
  return found.files;
};

function render(settings: Partial<GlobalSettings>, databases: readonly string[]) {
  const context = testContext({ geoip2Databases: databases });
  const conf = renderNginxConf(
    configuration({ servers: [server('app.example.com', [location('/', 'prefix', web.name)])], backends: [web], settings }),
    context,
  );
  return { conf, context, tree: parseNginxConf(conf) };
}

describe('geoip2Databases', () => {
  test("the default editions' files when all exist; the first missing one otherwise", () => {
    assert.deepEqual(files(), [join(directory, 'GeoLite2-City.mmdb'), join(directory, 'GeoLite2-ASN.mmdb')]);
    assert.deepEqual(geoip2Databases(directory, ['GeoLite2-City', 'GeoIP2-ISP']), { missing: join(directory, 'GeoIP2-ISP.mmdb') });
  });
});

describe('use-geoip2', () => {
  test(
    'with the databases: the module, a block per database with its variables, auto_reload in minutes',
    { skip: missingNginx },
    async () => {
      const { conf, context, tree } = render({ useGeoip2: true, geoip2AutoreloadInMinutes: 5 }, files());
      assert.ok(
        argsOf({ name: '', args: [], children: tree }, 'load_module').some(([path]) => path?.endsWith('/ngx_http_geoip2_module.so')),
      );
      const blocks = named(only(tree, 'http').children, 'geoip2');
      assert.deepEqual(
        blocks.map((block) => block.args),
        [[join(directory, 'GeoLite2-City.mmdb')], [join(directory, 'GeoLite2-ASN.mmdb')]],
      );
      const [city, asn] = blocks;
      assert.deepEqual(argsOf(city ?? blocks[0]!, 'auto_reload'), [['5m']]);
      const lines = (block: typeof city) =>
        (block?.children ?? []).filter((child) => child.name.startsWith('$')).map((child) => [child.name, ...child.args]);
      assert.deepEqual(lines(city)[0], ['$geoip2_city_country_code', 'source=$remote_addr', 'country', 'iso_code']);
      assert.deepEqual(lines(city)[10], ['$geoip2_region_code', 'source=$remote_addr', 'subdivisions', '0', 'iso_code']);
      assert.equal(lines(city).length, 18);
      assert.deepEqual(lines(asn), [
        ['$geoip2_asn', 'source=$remote_addr', 'autonomous_system_number'],
        ['$geoip2_org', 'source=$remote_addr', 'autonomous_system_organization'],
      ]);
      await nginxSyntaxCheck(conf, context);
    },
  );

  test('nothing without use-geoip2, or without the databases', () => {
    for (const { conf } of [render({}, files()), render({ useGeoip2: true }, [])]) {
      assert.ok(!conf.includes('geoip2'), conf.slice(0, 200));
    }
  });
});
