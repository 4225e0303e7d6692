// ingress-nginx's per-request metrics (its "socket" collector): a counter and
// histograms by status, method, path, namespace, Ingress, Service, canary (and
// host), fed with the records nginx sends in batches.
//
// The series live here rather than in prom-client Histograms: prom-client
// hashes the label object on every observe, about 4 µs per call, 30 µs for the
// 7 metrics of one request; here one Map lookup per record finds every metric's
// counts. They reach the same prom-client Registry as metric objects of its own
// shape (`get()` returns name, help, type and values), so /metrics is one
// exposition from one registry.
import { Summary, type Registry } from 'prom-client';
import type { Configuration } from '../model/types.js';
import type { ControllerLabels } from './controllerLabels.js';
import { registerFamily, type FamilyValue } from './metricFamily.js';
import { METRIC_PREFIX } from './metricNames.js';
import type { RequestRecord } from './requestBatch.js';
import { ingressKey, locationKey, ServedTraffic } from './servedTraffic.js';

export interface HistogramBuckets {
  /** --time-buckets (seconds). */
  readonly time: readonly number[];
  /** --length-buckets (bytes). */
  readonly length: readonly number[];
  /** --size-buckets (bytes). */
  readonly size: readonly number[];
}

export interface RequestMetricsOptions {
  readonly labels: ControllerLabels;
  /** --metrics-per-host: a `host` label, and only the Ingresses' hosts. */
  readonly metricsPerHost: boolean;
  /** --metrics-per-undefined-host: with metricsPerHost, other hosts too (UNDEFINED_HOSTS_LIMIT of them). */
  readonly metricsPerUndefinedHost: boolean;
  /** --report-status-classes: `2xx` rather than `200`. */
  readonly reportStatusClasses: boolean;
  /** --exclude-socket-metrics: names, with or without the `nginx_ingress_controller_` prefix. */
  readonly exclude: readonly string[];
  readonly buckets: HistogramBuckets;
}

interface HistogramSpec {
  readonly name: string;
  readonly help: string;
  readonly buckets: keyof HistogramBuckets;
  readonly value: (record: RequestRecord) => number | undefined;
}

/** ingress-nginx's histograms, with its bucket flags; help texts say what Portico measures. */
const HISTOGRAMS: readonly HistogramSpec[] = [
  {
    name: 'connect_duration_seconds',
    help: 'The time spent on establishing a connection with the upstream server (all attempts)',
    buckets: 'time',
    value: (record) => record.upstreamConnectTime,
  },
  {
    name: 'header_duration_seconds',
    help: 'The time spent on receiving the response header from the upstream server (all attempts)',
    buckets: 'time',
    value: (record) => record.upstreamHeaderTime,
  },
  {
    name: 'response_duration_seconds',
    help: 'The time spent on receiving the response from the upstream server (all attempts)',
    buckets: 'time',
    value: (record) => record.upstreamResponseTime,
  },
  {
    name: 'request_duration_seconds',
    help: 'The request processing time in seconds',
    buckets: 'time',
    value: (record) => record.requestTime,
  },
  {
    name: 'response_size',
    help: 'The response length (including status line, header and body)',
    buckets: 'length',
    value: (record) => record.bytesSent,
  },
  {
    name: 'request_size',
    help: 'The request length (including request line, header, and request body)',
    buckets: 'length',
    value: (record) => record.requestLength,
  },
  { name: 'bytes_sent', help: 'DEPRECATED The number of bytes sent to a client', buckets: 'size', value: (record) => record.bytesSent },
];

const REQUESTS = { name: 'requests', help: 'The total number of client requests' };
const UPSTREAM_LATENCY = { name: 'ingress_upstream_latency_seconds', help: 'DEPRECATED Upstream service latency per Ingress' };

/**
 * Methods kept as they are; any other becomes `OTHER`. nginx accepts any
 * upper-case token as a method, so a client could otherwise mint series at will.
 */
const METHODS: ReadonlySet<string> = new Set([
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'DELETE',
  'CONNECT',
  'OPTIONS',
  'TRACE',
  'PATCH',
  'PROPFIND',
  'PROPPATCH',
  'MKCOL',
  'COPY',
  'MOVE',
  'LOCK',
  'UNLOCK',
]);
const STATUS = /^[1-5]\d\d$/;
/** With --metrics-per-undefined-host: distinct client-chosen hosts labelled at most; later ones are not counted. */
export const UNDEFINED_HOSTS_LIMIT = 1000;
const MAX_HOST_LENGTH = 253;

interface HistogramValues {
  /** Per bucket, not cumulative; the last one is above every bound. */
  readonly counts: Float64Array;
  sum: number;
  count: number;
}

interface Series {
  readonly labels: Readonly<Record<string, string>>;
  readonly latencyLabels: Readonly<Record<string, string>>;
  requests: number;
  readonly histograms: HistogramValues[];
}

interface ActiveHistogram extends HistogramSpec {
  readonly bounds: readonly number[];
  /** Position in every Series' `histograms`. */
  readonly index: number;
}

export interface RecordOutcome {
  counted: number;
  /** Records naming a location, host or status the configuration does not serve. */
  skipped: number;
}

export class RequestMetrics {
  private served = ServedTraffic.NONE;
  private previous = ServedTraffic.NONE;
  private readonly series = new Map<string, Series>();
  private readonly undefinedHosts = new Set<string>();
  private readonly histograms: ActiveHistogram[];
  private readonly latency: Summary | undefined;

  constructor(
    private readonly options: RequestMetricsOptions,
    registry: Registry,
  ) {
    const excluded = new Set(options.exclude.map((name) => (name.startsWith(METRIC_PREFIX) ? name.slice(METRIC_PREFIX.length) : name)));
    this.histograms = HISTOGRAMS.filter((spec) => !excluded.has(spec.name)).map((spec, index) => ({
      ...spec,
      bounds: checkedBuckets(spec.buckets, options.buckets[spec.buckets]),
      index,
    }));
    if (!excluded.has(REQUESTS.name)) {
      registerFamily(registry, METRIC_PREFIX + REQUESTS.name, REQUESTS.help, 'counter', () => this.requestValues());
    }
    for (const histogram of this.histograms) {
      registerFamily(registry, METRIC_PREFIX + histogram.name, histogram.help, 'histogram', () => this.histogramValues(histogram));
    }
    this.latency = excluded.has(UPSTREAM_LATENCY.name)
      ? undefined
      : new Summary({
          name: METRIC_PREFIX + UPSTREAM_LATENCY.name,
          help: UPSTREAM_LATENCY.help,
          labelNames: [...Object.keys(options.labels), 'ingress', 'namespace', 'service', 'canary'],
          // client_golang's defaults, which ingress-nginx keeps: quantiles over the last 10 minutes.
          percentiles: [0.5, 0.9, 0.99],
          maxAgeSeconds: 600,
          ageBuckets: 5,
          registers: [registry],
        });
  }

  /**
   * The configuration nginx serves now (its live state pushed). Series of
   * Ingresses it no longer has are removed (as ingress-nginx does); records
   * from the workers of the previous configuration still count while their
   * Ingress exists.
   */
  serve(configuration: Configuration): void {
    this.previous = this.served;
    this.served = ServedTraffic.of(configuration);
    for (const [key, series] of this.series) {
      if (this.served.ingresses.has(ingressKey(series.labels.namespace ?? '', series.labels.ingress ?? ''))) continue;
      this.series.delete(key);
      this.latency?.remove(series.latencyLabels);
    }
  }

  record(records: readonly RequestRecord[]): RecordOutcome {
    let counted = 0;
    for (const record of records) {
      const series = this.seriesOf(record);
      if (!series) continue;
      counted++;
      series.requests++;
      for (const histogram of this.histograms) {
        const value = histogram.value(record);
        if (value === undefined) continue;
        const values = series.histograms[histogram.index]!;
        values.counts[bucketOf(histogram.bounds, value)]!++;
        values.sum += value;
        values.count++;
      }
      if (this.latency && record.upstreamConnectTime !== undefined) this.latency.observe(series.latencyLabels, record.upstreamConnectTime);
    }
    return { counted, skipped: records.length - counted };
  }

  /**
   * The record's series. Records of an existing series are counted without
   * further checks (more of them cannot add a series); a new label set must
   * name what the configuration serves.
   */
  private seriesOf(record: RequestRecord): Series | undefined {
    const { namespace, ingress, service, path } = record;
    const status = this.options.reportStatusClasses ? `${record.status[0]}xx` : record.status;
    const method = METHODS.has(record.method) ? record.method : 'OTHER';
    const host = this.options.metricsPerHost ? record.host : undefined;
    // The label is ingress-nginx's spelling, which two backends may share: the series is keyed by the label.
    const canary = record.canary === '' ? '' : (this.served.backends.get(record.canary) ?? this.previous.backends.get(record.canary));
    if (canary === undefined) return undefined;
    const key = `${status}\0${method}\0${path}\0${namespace}\0${ingress}\0${service}\0${canary}\0${host ?? ''}`;
    const existing = this.series.get(key);
    if (existing) return existing;
    if (!this.servesLocation(record) || !STATUS.test(record.status)) return undefined;
    if (host !== undefined && !this.labelsHost(host)) return undefined;
    const requestLabels = { status, method, path, namespace, ingress, service, canary, ...(host === undefined ? {} : { host }) };
    const series: Series = {
      labels: { ...this.options.labels, ...requestLabels },
      latencyLabels: { ...this.options.labels, ingress, namespace, service, canary },
      requests: 0,
      histograms: this.histograms.map((histogram) => ({ counts: new Float64Array(histogram.bounds.length + 1), sum: 0, count: 0 })),
    };
    this.series.set(key, series);
    return series;
  }

  private servesLocation({ namespace, ingress, service, path }: RequestRecord): boolean {
    const key = locationKey(namespace, ingress, service, path);
    return (
      this.served.locations.has(key) || (this.previous.locations.has(key) && this.served.ingresses.has(ingressKey(namespace, ingress)))
    );
  }

  private labelsHost(host: string): boolean {
    if (this.served.hosts.has(host)) return true;
    if (!this.options.metricsPerUndefinedHost || host.length > MAX_HOST_LENGTH) return false;
    if (this.undefinedHosts.has(host)) return true;
    if (this.undefinedHosts.size >= UNDEFINED_HOSTS_LIMIT) return false;
    this.undefinedHosts.add(host);
    return true;
  }

  private requestValues(): FamilyValue[] {
    return [...this.series.values()].map((series) => ({ labels: series.labels, value: series.requests }));
  }

  private histogramValues(histogram: ActiveHistogram): FamilyValue[] {
    const name = METRIC_PREFIX + histogram.name;
    const values: FamilyValue[] = [];
    for (const series of this.series.values()) {
      const { counts, sum, count } = series.histograms[histogram.index]!;
      if (count === 0) continue;
      let cumulative = 0;
      histogram.bounds.forEach((bound, i) => {
        cumulative += counts[i]!;
        values.push({ metricName: `${name}_bucket`, labels: { ...series.labels, le: bound }, value: cumulative });
      });
      values.push({ metricName: `${name}_bucket`, labels: { ...series.labels, le: '+Inf' }, value: count });
      values.push({ metricName: `${name}_sum`, labels: series.labels, value: sum });
      values.push({ metricName: `${name}_count`, labels: series.labels, value: count });
    }
    return values;
  }
}

/** The first bucket whose upper bound holds the value; bounds.length when none does. */
function bucketOf(bounds: readonly number[], value: number): number {
  let i = 0;
  while (i < bounds.length && value > bounds[i]!) i++;
  return i;
}

function checkedBuckets(flag: keyof HistogramBuckets, bounds: readonly number[]): readonly number[] {
  const increasing = bounds.every((bound, i) => Number.isFinite(bound) && (i === 0 || bound > bounds[i - 1]!));
  if (!increasing) throw new Error(`--${flag}-buckets must be finite and strictly increasing: ${bounds.join(',')}`);
  return bounds;
}
