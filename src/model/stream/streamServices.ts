// The TCP and UDP services of the --tcp-services-configmap and
// --udp-services-configmap ConfigMaps (ingress-nginx v1.15.1's
// getStreamServices): each entry whose Service port exists with the
// ConfigMap's protocol and has ready endpoints becomes a stream server.
// Entries are refused one by one, each with a problem for an Event on its
// ConfigMap; the others apply. A port Portico listens on (its HTTP, HTTPS,
// status, health... ports: the endpoint guard's) is refused, as ingress-nginx
// reserves its own; endpoints that are Portico itself, its stream ports
// included (a service proxying to its own port loops), are left out.
import type { ConfigMap } from '../../kube/objects.js';
import { endpointsForService, type EndpointPolicy, type ServiceLookup } from '../backends.js';
import { refuseSelfEndpoints, type EndpointGuard } from '../selfAddress.js';
import { quoteValue } from '../settings/valueSyntax.js';
import { parseStreamEntry, streamUpstreamName, type StreamServiceEntry } from './streamServiceEntry.js';
import type { StreamProtocol, StreamService } from './streamTypes.js';

/** The ConfigMaps the flags name (`namespace/name`); unset: no services of that protocol. */
export interface StreamServiceSources {
  tcpConfigMap?: string;
  udpConfigMap?: string;
}

/** A problem of one entry of a controller ConfigMap, for a Warning Event on it (and a log line). */
export interface ConfigMapProblem {
  /** `namespace/name` */
  configMap: string;
  reason: string;
  message: string;
}

export interface StreamServicesInput {
  sources: StreamServiceSources;
  lookup: ServiceLookup & { configMap(key: string): ConfigMap | undefined };
  policy: EndpointPolicy;
}

/** By protocol (TCP first), then port. */
export function buildStreamServices(input: StreamServicesInput, problems: ConfigMapProblem[]): StreamService[] {
  const entries: Array<{ configMap: string; entry: StreamServiceEntry }> = [];
  for (const [protocol, configMap] of [
    ['TCP', input.sources.tcpConfigMap],
    ['UDP', input.sources.udpConfigMap],
  ] as const) {
    if (configMap) entries.push(...parseConfigMap(configMap, protocol, input, problems));
  }
  // Every stream port is Portico's own: no endpoint of any of them may be this machine at one.
  const guard: EndpointGuard = {
    ...input.policy.guard,
    porticoPorts: [...new Set([...input.policy.guard.porticoPorts, ...entries.map(({ entry }) => entry.port)])],
  };
  const services: StreamService[] = [];
  for (const { configMap, entry } of entries) {
    const refuse = (reason: string, why: string) =>
      problems.push({ configMap, reason, message: `${entry.protocol} port ${entry.port}: ${why}; the port is not served` });
    const service = `${entry.namespace}/${entry.name}`;
    const found = input.lookup.service(service);
    if (!found) {
      refuse('ServiceNotFound', `Service ${service} not found`);
      continue;
    }
    if (found.spec?.type === 'ExternalName') {
      refuse('ExternalNameService', `Service ${service} is of type ExternalName; a stream backend must be an IP address`);
      continue;
    }
    const servicePort = (found.spec?.ports ?? []).find(
      (port) =>
        (port.protocol ?? 'TCP') === entry.protocol &&
        (/^[0-9]+$/.test(entry.servicePort) ? port.port === Number(entry.servicePort) : port.name === entry.servicePort),
    );
    if (!servicePort) {
      refuse('ServicePortNotFound', `Service ${service} has no ${entry.protocol} port ${quoteValue(entry.servicePort)}`);
      continue;
    }
    const dropped: string[] = [];
    // By the port's name when it has one: a Service may have one port number for TCP and UDP (DNS), each named.
    const ref = { namespace: entry.namespace, name: entry.name, port: servicePort.name ? servicePort.name : servicePort.port };
    const checked = refuseSelfEndpoints(endpointsForService(ref, input.lookup, dropped, input.policy.topologyZone), guard);
    const refusedEndpoints = [...dropped, ...checked.refused];
    if (refusedEndpoints.length > 0) {
      problems.push({
        configMap,
        reason: 'EndpointsRefused',
        message: `${entry.protocol} port ${entry.port}: Service ${service}: ${refusedEndpoints.join('; ')}`,
      });
    }
    if (checked.endpoints.length === 0) {
      refuse('NoEndpoints', `Service ${service} has no ready endpoint for port ${quoteValue(entry.servicePort)}`);
      continue;
    }
    services.push({
      port: entry.port,
      protocol: entry.protocol,
      upstreamName: streamUpstreamName(entry),
      service: { namespace: entry.namespace, name: entry.name, port: entry.servicePort },
      proxyProtocol: entry.proxyProtocol,
      endpoints: checked.endpoints,
    });
  }
  return services.sort((a, b) => (a.protocol === b.protocol ? a.port - b.port : a.protocol === 'TCP' ? -1 : 1));
}

/** The ConfigMap's valid entries, by port; every other one told in `problems`. */
function parseConfigMap(
  configMap: string,
  protocol: StreamProtocol,
  input: StreamServicesInput,
  problems: ConfigMapProblem[],
): Array<{ configMap: string; entry: StreamServiceEntry }> {
  const data = input.lookup.configMap(configMap)?.data ?? {};
  const reserved = new Set(input.policy.guard.porticoPorts);
  const byPort = new Map<number, { configMap: string; entry: StreamServiceEntry }>();
  // Sorted keys: which of two spellings of one port ("80", "080") wins does not depend on the API's order.
  for (const key of Object.keys(data).sort()) {
    const parsed = parseStreamEntry(key, data[key] ?? '', protocol);
    if (!parsed.ok) {
      problems.push({ configMap, reason: 'InvalidStreamService', message: `${parsed.message}; the entry is ignored` });
      continue;
    }
    const { entry } = parsed;
    if (reserved.has(entry.port)) {
      problems.push({
        configMap,
        reason: 'ReservedPort',
        message: `${protocol} port ${entry.port} is one of Portico's own ports; the entry is ignored`,
      });
      continue;
    }
    if (byPort.has(entry.port)) {
      problems.push({
        configMap,
        reason: 'DuplicatePort',
        message: `${protocol} port ${quoteValue(key)} is port ${entry.port}, which another key of the ConfigMap already names; the entry is ignored`,
      });
      continue;
    }
    if (entry.ignoredProxyFields) {
      problems.push({
        configMap,
        reason: 'ProxyProtocolIgnored',
        message: `${protocol} port ${entry.port}: PROXY applies to TCP services only; it is ignored`,
      });
    }
    byPort.set(entry.port, { configMap, entry });
  }
  return [...byPort.values()];
}

/** The services the flags' ConfigMaps serve; none without those flags. */
export function streamServicesOf(
  sources: StreamServiceSources | undefined,
  lookup: StreamServicesInput['lookup'],
  policy: EndpointPolicy,
  problems: ConfigMapProblem[],
): StreamService[] {
  return sources ? buildStreamServices({ sources, lookup, policy }, problems) : [];
}
