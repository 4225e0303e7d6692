// Flags of the process: shutdown timing, GeoIP databases, version, logging, Portico's own.
import type { FlagDefinition } from './flagDefinition.js';

// ingress-nginx downloads GeoIP2 databases at start when given a license key or a mirror.
const DOWNLOADS =
  'it downloads the databases from MaxMind, and Portico makes no such network call (offline clusters); put the .mmdb files of --maxmind-edition-ids in /etc/ingress-controller/geoip/';

export const PROCESS_FLAGS = [
  {
    name: 'shutdown-grace-period',
    kind: 'int',
    default: 0,
    implemented: true,
    description: 'Seconds to wait after the shutdown signal before stopping nginx.',
  },
  {
    name: 'post-shutdown-grace-period',
    kind: 'int',
    default: 10,
    implemented: true,
    description: 'Seconds to wait after nginx stopped before the controller exits.',
  },

  // GeoIP
  {
    name: 'maxmind-license-key',
    kind: 'string',
    default: '',
    implemented: false,
    description: 'MaxMind license key for downloading GeoLite2 databases.',
    cannotApply: DOWNLOADS,
  },
  {
    name: 'maxmind-edition-ids',
    kind: 'string',
    default: 'GeoLite2-City,GeoLite2-ASN',
    implemented: true,
    description: 'Comma-separated GeoIP2 editions whose <edition>.mmdb files in /etc/ingress-controller/geoip/ GeoIP2 uses.',
    cannotApply: 'the files are never downloaded (see --maxmind-license-key); the ones on disk are used',
  },
  {
    name: 'maxmind-mirror',
    kind: 'string',
    default: '',
    implemented: false,
    description: 'Mirror URL to download the GeoLite2 databases from instead of MaxMind.',
    cannotApply: DOWNLOADS,
  },
  {
    name: 'maxmind-retries-count',
    kind: 'int',
    default: 1,
    implemented: false,
    description: 'Attempts to download a GeoIP database.',
    cannotApply: DOWNLOADS,
  },
  {
    name: 'maxmind-retries-timeout',
    kind: 'duration',
    default: 0,
    implemented: false,
    description: 'Delay between GeoIP download attempts; 0 means do not retry.',
    cannotApply: DOWNLOADS,
  },

  // Process
  { name: 'version', kind: 'bool', default: false, implemented: true, description: 'Print the version and exit.' },
  {
    name: 'v',
    kind: 'int',
    default: 0,
    implemented: true,
    description: 'Log verbosity, as klog: 2 and above logs configuration changes, 5 and above traces.',
  },
  {
    name: 'manifests',
    kind: 'string',
    default: '',
    implemented: true,
    description: 'Portico only: serve the YAML manifests in this folder instead of watching a cluster.',
  },
  {
    name: 'nginx-prefix',
    kind: 'string',
    default: '',
    implemented: true,
    description: 'Portico only: the directory nginx runs in (default: <tmpdir>/portico-<http-port>).',
  },
] as const satisfies readonly FlagDefinition[];
