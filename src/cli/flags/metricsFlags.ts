// Flags of the request metrics (Prometheus histograms).
import type { FlagDefinition } from './flagDefinition.js';

// Prometheus client_golang's DefBuckets, LinearBuckets(10, 10, 10) and
// ExponentialBuckets(10, 10, 7): ingress-nginx's histogram defaults.
const PROMETHEUS_DEFAULT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;
const LENGTH_BUCKETS = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100] as const;
const SIZE_BUCKETS = [10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000] as const;

// client_golang's native (sparse) histograms, which --bucket-factor above 1 turns on.
const NATIVE_HISTOGRAMS =
  'native histograms: prom-client, which Portico exports its metrics with, has none, so Portico exports the classic histograms of --time-buckets, --length-buckets and --size-buckets';

export const METRICS_FLAGS = [
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
    cannotApply: NATIVE_HISTOGRAMS,
  },
  {
    name: 'max-buckets',
    kind: 'uint32',
    default: 100,
    implemented: false,
    description: 'Maximum bucket count of native histograms.',
    cannotApply: NATIVE_HISTOGRAMS,
  },
  {
    name: 'monitor-max-batch-size',
    kind: 'int',
    default: 10000,
    implemented: true,
    description: 'Maximum number of request records nginx sends in one batch.',
  },
] as const satisfies readonly FlagDefinition[];
