// The command-line flags Portico accepts: every flag of ingress-nginx's
// pkg/flags/flags.go with the same name, type and default (so existing
// Deployments start unchanged), klog's `-v`, and Portico's own `--manifests` and `--nginx-prefix`.
// `implemented` says whether Portico acts on a flag yet; the others are
// accepted, and passing one is reported as ignored.

/** How a flag's value is written and parsed (Go/pflag syntax). */
export type FlagKind = 'string' | 'bool' | 'int' | 'uint32' | 'float' | 'duration' | 'ip' | 'stringList' | 'floatList';

/** The parsed value of each kind. */
export interface FlagValueByKind {
  string: string;
  bool: boolean;
  int: number;
  uint32: number;
  float: number;
  /** In milliseconds (Go's `30s` is 30000). */
  duration: number;
  ip: string;
  stringList: readonly string[];
  floatList: readonly number[];
}

export type FlagValue = FlagValueByKind[FlagKind];

interface FlagDefinitionOfKind<K extends FlagKind> {
  readonly name: string;
  readonly kind: K;
  readonly default: FlagValueByKind[K];
  readonly description: string;
  readonly implemented: boolean;
}

/** One row of the table; the default's type follows the kind. */
export type FlagDefinition = { [K in FlagKind]: FlagDefinitionOfKind<K> }[FlagKind];

// Prometheus client_golang's DefBuckets, LinearBuckets(10, 10, 10) and
// ExponentialBuckets(10, 10, 7): ingress-nginx's histogram defaults.
const PROMETHEUS_DEFAULT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;
const LENGTH_BUCKETS = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100] as const;
const SIZE_BUCKETS = [10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000] as const;

const SECOND = 1000;

export const FLAG_DEFINITIONS = [
  // Cluster access and scope
  {
    name: 'apiserver-host',
    kind: 'string',
    default: '',
    implemented: true,
    description: 'Kubernetes API server URL (protocol://address:port); in-cluster discovery when empty.',
  },
  {
    name: 'kubeconfig',
    kind: 'string',
    default: '',
    implemented: true,
    description: 'Path to a kubeconfig file with the API server address and credentials.',
  },
  {
    name: 'certificate-authority',
    kind: 'string',
    default: '',
    implemented: true,
    description: 'CA certificate file to trust the API server named by --apiserver-host.',
  },
  {
    name: 'watch-namespace',
    kind: 'string',
    default: '',
    implemented: true,
    description: 'Only watch objects in this namespace; all namespaces when empty.',
  },
  {
    name: 'watch-namespace-selector',
    kind: 'string',
    default: '',
    implemented: true,
    description: 'Only watch namespaces matching this label selector (exclusive with --watch-namespace).',
  },
  {
    name: 'sync-period',
    kind: 'duration',
    default: 0,
    implemented: false,
    description: 'How often the local object caches are fully re-listed; 0 disables it.',
  },
  {
    name: 'disable-sync-events',
    kind: 'bool',
    default: false,
    implemented: true,
    description: "Do not create 'Sync' Event objects (the syncs are still logged).",
  },

  // Class selection
  {
    name: 'ingress-class',
    kind: 'string',
    default: 'nginx',
    implemented: true,
    description: 'Value of the deprecated kubernetes.io/ingress.class annotation this controller handles.',
  },
  {
    name: 'controller-class',
    kind: 'string',
    default: 'k8s.io/ingress-nginx',
    implemented: true,
    description: 'IngressClass spec.controller value this controller handles.',
  },
  {
    name: 'ingress-class-by-name',
    kind: 'bool',
    default: false,
    implemented: true,
    description: 'Also handle Ingresses whose IngressClass name equals --ingress-class.',
  },
  {
    name: 'watch-ingress-without-class',
    kind: 'bool',
    default: false,
    implemented: true,
    description: 'Also handle Ingresses that name no class at all.',
  },
  {
    name: 'annotations-prefix',
    kind: 'string',
    default: 'nginx.ingress.kubernetes.io',
    implemented: true,
    description: 'Prefix of the Ingress annotations this controller reads.',
  },

  // Configuration sources
  { name: 'configmap', kind: 'string', default: '', implemented: true, description: 'Global configuration ConfigMap, as namespace/name.' },
  {
    name: 'tcp-services-configmap',
    kind: 'string',
    default: '',
    implemented: false,
    description: 'ConfigMap mapping external TCP ports to namespace/service:port.',
  },
  {
    name: 'udp-services-configmap',
    kind: 'string',
    default: '',
    implemented: false,
    description: 'ConfigMap mapping external UDP ports to namespace/service:port.',
  },
  {
    name: 'default-backend-service',
    kind: 'string',
    default: '',
    implemented: true,
    description: 'Service (namespace/name) that receives requests no Ingress matches; its first port is used.',
  },
  {
    name: 'default-ssl-certificate',
    kind: 'string',
    default: '',
    implemented: true,
    description: 'TLS Secret (namespace/name) for the catch-all HTTPS server instead of a self-signed one.',
  },
  {
    name: 'disable-catch-all',
    kind: 'bool',
    default: false,
    implemented: true,
    description: 'Ignore Ingresses that only set spec.defaultBackend.',
  },
  {
    name: 'disable-svc-external-name',
    kind: 'bool',
    default: false,
    implemented: true,
    description: 'ExternalName Services give no endpoints (their backends answer 503; a Warning Event says why).',
  },
  {
    name: 'enable-ssl-chain-completion',
    kind: 'bool',
    default: false,
    implemented: false,
    description: 'Fetch missing intermediate certificates through the AIA extension.',
  },
  {
    name: 'enable-topology-aware-routing',
    kind: 'bool',
    default: false,
    implemented: false,
    description: 'Prefer endpoints in the same zone when the Service asks for topology-aware routing.',
  },

  // Ports and listen addresses
  { name: 'http-port', kind: 'int', default: 80, implemented: true, description: 'Port for HTTP traffic.' },
  { name: 'https-port', kind: 'int', default: 443, implemented: true, description: 'Port for HTTPS traffic.' },
  { name: 'default-server-port', kind: 'int', default: 8181, implemented: true, description: 'Internal port of the catch-all server.' },
  { name: 'healthz-port', kind: 'int', default: 10254, implemented: true, description: 'Port of the health check and metrics endpoint.' },
  {
    name: 'healthz-host',
    kind: 'string',
    default: '',
    implemented: true,
    description: 'Address the health check endpoint binds to; all addresses when empty.',
  },
  {
    name: 'status-port',
    kind: 'int',
    default: 10246,
    implemented: true,
    description: 'Local port of the nginx status and dynamic configuration endpoint.',
  },
  {
    name: 'stream-port',
    kind: 'int',
    default: 10247,
    implemented: false,
    description: 'Local port where TCP/UDP backends are sent to nginx.',
  },
  { name: 'profiling', kind: 'bool', default: true, implemented: false, description: 'Serve profiling data under /debug/pprof.' },
  { name: 'profiler-port', kind: 'int', default: 10245, implemented: false, description: 'Port of the profiling endpoint.' },
  {
    name: 'profiler-address',
    kind: 'ip',
    default: '127.0.0.1',
    implemented: false,
    description: 'IP address the profiling endpoint binds to.',
  },
  {
    name: 'ssl-passthrough-proxy-port',
    kind: 'int',
    default: 442,
    implemented: false,
    description: 'Internal port nginx HTTPS moves to when SSL passthrough is on.',
  },
  {
    name: 'internal-logger-address',
    kind: 'string',
    default: '127.0.0.1:11514',
    implemented: false,
    description: 'Address of the internal syslog listener.',
  },

  // Features
  {
    name: 'enable-ssl-passthrough',
    kind: 'bool',
    default: false,
    implemented: false,
    description: 'Route TLS connections by SNI without terminating them.',
  },
  {
    name: 'health-check-path',
    kind: 'string',
    default: '/healthz',
    implemented: true,
    description: 'URL path of the health check endpoint.',
  },
  {
    name: 'health-check-timeout',
    kind: 'int',
    default: 10,
    implemented: true,
    description: 'Seconds a health check probe of nginx may take.',
  },
  {
    name: 'dynamic-configuration-retries',
    kind: 'int',
    default: 15,
    implemented: true,
    description: 'Attempts to push a dynamic configuration to nginx before the sync fails.',
  },
  { name: 'sync-rate-limit', kind: 'float', default: 0.3, implemented: true, description: 'Maximum full configuration syncs per second.' },
  {
    name: 'deep-inspect',
    kind: 'bool',
    default: true,
    implemented: false,
    description: 'Reject Ingress fields that contain dangerous nginx directives or paths.',
  },
  {
    name: 'enable-annotation-validation',
    kind: 'bool',
    default: true,
    implemented: false,
    description: 'Check annotation values against their allowed syntax.',
  },

  // Status and leader election
  {
    name: 'update-status',
    kind: 'bool',
    default: true,
    implemented: true,
    description: 'Write the load-balancer address into the status of handled Ingresses.',
  },
  {
    name: 'publish-service',
    kind: 'string',
    default: '',
    implemented: true,
    description: 'Service (namespace/name) whose address is written into Ingress status.',
  },
  {
    name: 'publish-status-address',
    kind: 'string',
    default: '',
    implemented: true,
    description: 'Fixed comma-separated addresses to write into Ingress status.',
  },
  {
    name: 'report-node-internal-ip-address',
    kind: 'bool',
    default: false,
    implemented: true,
    description: 'Report node internal IPs instead of external ones in Ingress status.',
  },
  {
    name: 'status-update-interval',
    kind: 'int',
    default: 60,
    implemented: true,
    description: 'Seconds between checks whether Ingress status needs updating.',
  },
  {
    name: 'update-status-on-shutdown',
    kind: 'bool',
    default: true,
    implemented: true,
    description: 'Clear Ingress status when the last controller replica shuts down.',
  },
  {
    name: 'election-id',
    kind: 'string',
    default: 'ingress-controller-leader',
    implemented: true,
    description: 'Name of the leader election Lease.',
  },
  {
    name: 'election-ttl',
    kind: 'duration',
    default: 30 * SECOND,
    implemented: true,
    description: 'How long a leader election lease lasts before it must be renewed.',
  },
  { name: 'disable-leader-election', kind: 'bool', default: false, implemented: true, description: 'Run without leader election.' },

  // Admission webhook
  {
    name: 'validating-webhook',
    kind: 'string',
    default: '',
    implemented: true,
    description: 'Listen address (host:port) of the validating admission webhook; none when empty.',
  },
  {
    name: 'validating-webhook-certificate',
    kind: 'string',
    default: '',
    implemented: true,
    description: 'PEM certificate file of the admission webhook.',
  },
  {
    name: 'validating-webhook-key',
    kind: 'string',
    default: '',
    implemented: true,
    description: 'PEM private key file of the admission webhook.',
  },
  {
    name: 'disable-full-test',
    kind: 'bool',
    default: false,
    implemented: false,
    description: 'Validate only the submitted Ingress at admission, not the whole merged configuration.',
  },

  // Metrics
  { name: 'enable-metrics', kind: 'bool', default: false, implemented: true, description: 'Collect and export request metrics.' },
  { name: 'metrics-per-host', kind: 'bool', default: true, implemented: true, description: 'Label request metrics with the host.' },
  {
    name: 'metrics-per-undefined-host',
    kind: 'bool',
    default: false,
    implemented: true,
    description: 'Label metrics with the host even when no Ingress defines it (needs --metrics-per-host).',
  },
  {
    name: 'report-status-classes',
    kind: 'bool',
    default: false,
    implemented: true,
    description: 'Label metrics with status classes (2xx, 3xx...) instead of exact codes.',
  },
  {
    name: 'exclude-socket-metrics',
    kind: 'stringList',
    default: [],
    implemented: true,
    description: 'Comma-separated request metric names not to compute or export.',
  },
  {
    name: 'time-buckets',
    kind: 'floatList',
    default: PROMETHEUS_DEFAULT_BUCKETS,
    implemented: true,
    description: 'Histogram buckets (seconds) of request and response time metrics.',
  },
  {
    name: 'length-buckets',
    kind: 'floatList',
    default: LENGTH_BUCKETS,
    implemented: true,
    description: 'Histogram buckets of request and response length metrics.',
  },
  {
    name: 'size-buckets',
    kind: 'floatList',
    default: SIZE_BUCKETS,
    implemented: true,
    description: 'Histogram buckets of bytes-sent metrics.',
  },
  {
    name: 'bucket-factor',
    kind: 'float',
    default: 0,
    implemented: false,
    description: 'Growth factor of native histograms; above 1 turns them on (Portico exports classic histograms only).',
  },
  { name: 'max-buckets', kind: 'uint32', default: 100, implemented: false, description: 'Maximum bucket count of native histograms.' },
  {
    name: 'monitor-max-batch-size',
    kind: 'int',
    default: 10000,
    implemented: true,
    description: 'Maximum number of request records nginx sends in one batch.',
  },

  // Shutdown
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
  },
  {
    name: 'maxmind-edition-ids',
    kind: 'string',
    default: 'GeoLite2-City,GeoLite2-ASN',
    implemented: false,
    description: 'Comma-separated GeoLite2 database editions to download.',
  },
  {
    name: 'maxmind-mirror',
    kind: 'string',
    default: '',
    implemented: false,
    description: 'Mirror URL to download the GeoLite2 databases from instead of MaxMind.',
  },
  { name: 'maxmind-retries-count', kind: 'int', default: 1, implemented: false, description: 'Attempts to download a GeoIP database.' },
  {
    name: 'maxmind-retries-timeout',
    kind: 'duration',
    default: 0,
    implemented: false,
    description: 'Delay between GeoIP download attempts; 0 means do not retry.',
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

export type FlagName = (typeof FLAG_DEFINITIONS)[number]['name'];

/** `watch-namespace` → `watchNamespace`, at the type level. */
type CamelCase<S extends string> = S extends `${infer Head}-${infer Tail}` ? `${Head}${Capitalize<CamelCase<Tail>>}` : S;

/** All flag values, one camelCase property per flag (e.g. `flags.syncRateLimit`). */
export type Flags = {
  readonly [D in (typeof FLAG_DEFINITIONS)[number] as CamelCase<D['name']>]: FlagValueByKind[D['kind']];
};

/** `watch-namespace` → `watchNamespace`: the property of a flag in {@link Flags}. */
export function flagPropertyName(name: string): string {
  return name.replace(/-([a-z0-9])/g, (_match, letter: string) => letter.toUpperCase());
}
