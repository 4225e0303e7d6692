// The MaxMind databases GeoIP2 reads (use-geoip2): the operator's files in
// ingress-nginx's fixed directory, one `<edition id>.mmdb` per
// --maxmind-edition-ids entry. Portico cannot download them (no network, no
// licence key), so it uses the ones already on disk; as in ingress-nginx, one
// missing edition turns GeoIP2 off altogether.
import { existsSync } from 'node:fs';
import { posix } from 'node:path';
import type { Logger } from '../../log/logger.js';

/** Where ingress-nginx keeps (and expects) the databases. */
export const GEOIP2_DIRECTORY = '/etc/ingress-controller/geoip';

/** --maxmind-edition-ids' default. */
export const DEFAULT_MAXMIND_EDITION_IDS: readonly string[] = ['GeoLite2-City', 'GeoLite2-ASN'];

export type Geoip2Databases = { readonly files: readonly string[] } | { readonly missing: string };

/** The database of each edition in `directory`, or the first one missing. */
export function geoip2Databases(directory: string, editionIds: readonly string[] = DEFAULT_MAXMIND_EDITION_IDS): Geoip2Databases {
  const files = editionIds.map((id) => posix.join(directory, `${id}.mmdb`));
  const missing = files.find((file) => !existsSync(file));
  return missing === undefined ? { files } : { missing };
}

/** The databases use-geoip2 may read, logging which: none (GeoIP2 then renders nothing) when one is missing. */
export function availableGeoip2Databases(
  logger: Logger,
  directory = GEOIP2_DIRECTORY,
  editionIds: readonly string[] = DEFAULT_MAXMIND_EDITION_IDS,
): readonly string[] {
  const found = geoip2Databases(directory, editionIds);
  if ('files' in found) {
    logger.info({ databases: found.files }, 'GeoIP2 databases found: use-geoip2 reads them');
    return found.files;
  }
  logger.info({ missing: found.missing }, 'a GeoIP2 database is missing: use-geoip2 has no effect (Portico cannot download them)');
  return [];
}
