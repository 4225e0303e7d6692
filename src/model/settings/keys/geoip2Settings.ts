// use-geoip2 and geoip2-autoreload-in-minutes: GeoIP2 lookups of the client
// address with Debian's libnginx-mod-http-geoip2, in ingress-nginx's variables
// ($geoip2_city_country_code...). The MaxMind databases are the operator's
// files (src/dataplane/nginx/geoip2Databases.ts); without them nothing is rendered.
import { MAX_TIMER_SECONDS } from '../nginxLimits.js';
import type { SpecTable } from '../settingSpec.js';
import { integerParser, parseBoolean } from '../valueSyntax.js';

export interface Geoip2Settings {
  /** use-geoip2 */
  useGeoip2: boolean;
  /** geoip2-autoreload-in-minutes: how often nginx reopens a changed database (0: never) */
  geoip2AutoreloadInMinutes: number;
}

export const GEOIP2_DEFAULTS: Geoip2Settings = {
  useGeoip2: false,
  geoip2AutoreloadInMinutes: 0,
};

export const GEOIP2_SPECS: SpecTable<Geoip2Settings> = {
  useGeoip2: { key: 'use-geoip2', parse: parseBoolean },
  // auto_reload is an nginx timer: at most what one holds.
  geoip2AutoreloadInMinutes: {
    key: 'geoip2-autoreload-in-minutes',
    parse: integerParser(0, Math.floor(MAX_TIMER_SECONDS / 60), ' of minutes'),
  },
};
