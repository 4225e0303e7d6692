// use-geoip2: ngx_http_geoip2_module (Debian's libnginx-mod-http-geoip2)
// loaded in the main context and one geoip2 block per database, with
// ingress-nginx's variables for the editions it knows (another edition's file
// is loaded by nothing, as there). Nothing at all unless use-geoip2 is on and
// the databases exist (RenderContext.geoip2Databases).
import { posix } from 'node:path';
import type { GlobalSettings } from '../../../model/settings/globalSettings.js';
import { filePath, literal, raw } from './arguments.js';
import type { ConfigBuilder } from './configBuilder.js';
import type { RenderContext } from './renderContext.js';

export const GEOIP2_MODULE_FILE = 'ngx_http_geoip2_module.so';

/** A variable and the path of its value in the database record. */
type Lookup = readonly [variable: string, ...path: string[]];

const COUNTRY: readonly Lookup[] = [
  ['$geoip2_country_code', 'country', 'iso_code'],
  ['$geoip2_country_name', 'country', 'names', 'en'],
  ['$geoip2_country_geoname_id', 'country', 'geoname_id'],
  ['$geoip2_continent_code', 'continent', 'code'],
  ['$geoip2_continent_name', 'continent', 'names', 'en'],
  ['$geoip2_continent_geoname_id', 'continent', 'geoname_id'],
];

const CITY: readonly Lookup[] = [
  ['$geoip2_city_country_code', 'country', 'iso_code'],
  ['$geoip2_city_country_name', 'country', 'names', 'en'],
  ['$geoip2_city_country_geoname_id', 'country', 'geoname_id'],
  ['$geoip2_city', 'city', 'names', 'en'],
  ['$geoip2_city_geoname_id', 'city', 'geoname_id'],
  ['$geoip2_postal_code', 'postal', 'code'],
  ['$geoip2_dma_code', 'location', 'metro_code'],
  ['$geoip2_latitude', 'location', 'latitude'],
  ['$geoip2_longitude', 'location', 'longitude'],
  ['$geoip2_time_zone', 'location', 'time_zone'],
  ['$geoip2_region_code', 'subdivisions', '0', 'iso_code'],
  ['$geoip2_region_name', 'subdivisions', '0', 'names', 'en'],
  ['$geoip2_region_geoname_id', 'subdivisions', '0', 'geoname_id'],
  ['$geoip2_subregion_code', 'subdivisions', '1', 'iso_code'],
  ['$geoip2_subregion_name', 'subdivisions', '1', 'names', 'en'],
  ['$geoip2_subregion_geoname_id', 'subdivisions', '1', 'geoname_id'],
  ['$geoip2_city_continent_code', 'continent', 'code'],
  ['$geoip2_city_continent_name', 'continent', 'names', 'en'],
];

const ASN: readonly Lookup[] = [
  ['$geoip2_asn', 'autonomous_system_number'],
  ['$geoip2_org', 'autonomous_system_organization'],
];

/** A lookup whose value is 0 when the record lacks it (ingress-nginx's `default=0`). */
const zeroDefault = ([variable, ...path]: Lookup): Lookup => [variable, 'default=0', ...path];

/** The variables of each edition ingress-nginx's template knows, by file name. */
const LOOKUPS: ReadonlyMap<string, readonly Lookup[]> = new Map([
  ['GeoLite2-Country.mmdb', COUNTRY],
  ['GeoIP2-Country.mmdb', COUNTRY],
  ['GeoLite2-City.mmdb', CITY],
  ['GeoIP2-City.mmdb', CITY],
  ['GeoLite2-ASN.mmdb', ASN],
  ['GeoIP2-ASN.mmdb', ASN],
  [
    'GeoIP2-ISP.mmdb',
    [
      ['$geoip2_isp', 'isp'],
      ['$geoip2_isp_org', 'organization'],
      // Also defined by the ASN editions: the module's variables may be, the last block wins.
      zeroDefault(['$geoip2_asn', 'autonomous_system_number']),
    ],
  ],
  ['GeoIP2-Connection-Type.mmdb', [['$geoip2_connection_type', 'connection_type']]],
  [
    'GeoIP2-Anonymous-IP.mmdb',
    [
      ['$geoip2_is_anon', 'is_anonymous'],
      zeroDefault(['$geoip2_is_anonymous', 'is_anonymous']),
      zeroDefault(['$geoip2_is_anonymous_vpn', 'is_anonymous_vpn']),
      zeroDefault(['$geoip2_is_hosting_provider', 'is_hosting_provider']),
      zeroDefault(['$geoip2_is_public_proxy', 'is_public_proxy']),
      zeroDefault(['$geoip2_is_tor_exit_node', 'is_tor_exit_node']),
    ],
  ],
]);

function usesGeoip2(settings: GlobalSettings, context: RenderContext): boolean {
  return settings.useGeoip2 && context.geoip2Databases.length > 0;
}

export function renderGeoip2Module(main: ConfigBuilder, settings: GlobalSettings, context: RenderContext): void {
  if (usesGeoip2(settings, context)) main.directive('load_module', filePath(posix.join(context.modulesDir, GEOIP2_MODULE_FILE)));
}

export function renderGeoip2Http(http: ConfigBuilder, settings: GlobalSettings, context: RenderContext): void {
  if (!usesGeoip2(settings, context)) return;
  for (const database of context.geoip2Databases) {
    const lookups = LOOKUPS.get(posix.basename(database));
    if (lookups === undefined) continue;
    http.block('geoip2', [filePath(database)], (block) => {
      if (settings.geoip2AutoreloadInMinutes > 0) block.directive('auto_reload', raw.time(`${settings.geoip2AutoreloadInMinutes}m`));
      for (const [variable, ...path] of lookups) block.entry(raw.variable(variable), literal('source=$remote_addr'), ...path.map(literal));
    });
  }
}
