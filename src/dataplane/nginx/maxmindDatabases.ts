// The GeoIP2 databases of --maxmind-edition-ids, as ingress-nginx finds them:
// `<edition>.mmdb` in /etc/ingress-controller/geoip/. ingress-nginx can also
// download them at start (--maxmind-license-key, --maxmind-mirror); Portico
// never does (no network call from the controller), so the operator puts them
// there (a volume, an image layer). GeoIP2 (the ConfigMap's use-geoip2) needs
// every listed edition on disk, as in ingress-nginx.
import { statSync } from 'node:fs';
import { join } from 'node:path';

/** ingress-nginx's directory for the databases. */
export const GEOIP_DIRECTORY = '/etc/ingress-controller/geoip';

// ingress-nginx's ValidateGeoLite2DBEditions list: any other name stops it at start.
const KNOWN_EDITIONS: ReadonlySet<string> = new Set([
  'GeoIP2-Anonymous-IP',
  'GeoIP2-Country',
  'GeoIP2-City',
  'GeoIP2-Connection-Type',
  'GeoIP2-Domain',
  'GeoIP2-ISP',
  'GeoIP2-ASN',
  'GeoLite2-ASN',
  'GeoLite2-Country',
  'GeoLite2-City',
]);

/** The editions of a `--maxmind-edition-ids` value (comma-separated, as given). */
export function maxmindEditions(editionIds: string): string[] {
  return editionIds === '' ? [] : editionIds.split(',');
}

/** The first edition ingress-nginx would refuse at start, or undefined when all are known. */
export function unknownMaxmindEdition(editionIds: string): string | undefined {
  return maxmindEditions(editionIds).find((edition) => !KNOWN_EDITIONS.has(edition));
}

export interface MaxmindDatabases {
  /** The database file names (`GeoLite2-City.mmdb`) found, in the order of the flag. */
  present: string[];
  /** The file names not found (or not regular files); GeoIP2 is off while any is missing. */
  missing: string[];
}

/** Which edition files of `editionIds` are in `directory` now. */
export function maxmindEditionFiles(editionIds: string, directory: string = GEOIP_DIRECTORY): MaxmindDatabases {
  const result: MaxmindDatabases = { present: [], missing: [] };
  for (const edition of maxmindEditions(editionIds)) {
    const file = `${edition}.mmdb`;
    (isFile(join(directory, file)) ? result.present : result.missing).push(file);
  }
  return result;
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
