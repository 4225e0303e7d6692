// Which --maxmind-edition-ids databases are on disk (the GeoIP2 keys use the files found; none is downloaded).
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { GEOIP_DIRECTORY, maxmindEditionFiles } from '../../../src/dataplane/nginx/maxmindDatabases.js';

test("ingress-nginx's directory is the default", () => {
  assert.equal(GEOIP_DIRECTORY, '/etc/ingress-controller/geoip');
});

test('lists the edition files present and missing, in the order of the flag; a directory is not a database', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'portico-geoip-'));
  try {
    await writeFile(join(dir, 'GeoLite2-ASN.mmdb'), 'db');
    await writeFile(join(dir, 'GeoIP2-ISP.mmdb'), 'db');
    await mkdir(join(dir, 'GeoIP2-City.mmdb'));
    assert.deepEqual(maxmindEditionFiles('GeoLite2-City,GeoLite2-ASN,GeoIP2-City,GeoIP2-ISP', dir), {
      present: ['GeoLite2-ASN.mmdb', 'GeoIP2-ISP.mmdb'],
      missing: ['GeoLite2-City.mmdb', 'GeoIP2-City.mmdb'],
    });
    assert.deepEqual(maxmindEditionFiles('', dir), { present: [], missing: [] });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
