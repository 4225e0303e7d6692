// Backends (nginx upstreams) from Services and their EndpointSlices.
import { isIPv4, isIPv6 } from 'node:net';
import type { EndpointSlice, Service } from '../kube/objects.js';
import { parseAddress, refuseSelfEndpoints, type EndpointGuard } from './selfAddress.js';
import { quoteValue } from './settings/valueSyntax.js';
import { endpointsForZone, hintZoneFor } from './topologyHints.js';
import type { Backend, Balancing, Endpoint } from './types.js';

export interface ServiceReference {
  namespace: string;
  name: string;
  /** The Ingress backend's port: a number or a Service port name. */
  port: string | number;
}

/**
 * `<namespace>/<service>:<port>`, a backend's identity (the live state's key,
 * `$proxy_upstream_name`, metrics). ingress-nginx's `<namespace>-<service>-<port>`
 * is ambiguous, "-" being allowed in names (`team/x-api:80` and `team-x/api:80`
 * were one upstream, served by the older Ingress's Service); "/" and ":" cannot
 * occur in a namespace, Service or port name (DNS labels, IANA service names).
 * Objects from manifests are not validated, so "%", "/" and ":" inside a part are
 * percent-encoded, and a named port made only of digits (which Kubernetes
 * refuses) gets a "%N" prefix (a sequence the encoding never makes): the name is injective whatever the input.
 */
export function backendName(ref: ServiceReference): string {
  const port = typeof ref.port === 'number' ? String(ref.port) : /^[0-9]+$/.test(ref.port) ? `%N${ref.port}` : encodeNamePart(ref.port);
  return `${encodeNamePart(ref.namespace)}/${encodeNamePart(ref.name)}:${port}`;
}

function encodeNamePart(part: string): string {
  return part.replace(/[%/:]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** ingress-nginx's upstream name, `<namespace>-<service>-<port>`: the canary metrics label and the affinity cookie's salt, as there. */
export function ingressNginxUpstreamName(service: Backend['service']): string {
  return `${service.namespace}-${service.name}-${service.port}`;
}

/** Which endpoints a backend may have, whatever its Service says. */
export interface EndpointPolicy {
  /** Portico's own addresses and ports: never a backend. */
  guard: EndpointGuard;
  /** false with `--disable-svc-external-name`: ExternalName Services give no endpoints. */
  externalNames: boolean;
  /** With `--enable-topology-aware-routing`: the controller's zone (undefined when unknown or off). */
  topologyZone?: string;
}

export interface ServiceLookup {
  service(key: string): Service | undefined;
  endpointSlicesOfService(serviceKey: string): EndpointSlice[];
  /** Optional: a number that changes whenever the two above may answer differently (memo/builtBackendMemo.ts). */
  serviceGeneration?(): number;
}

/**
 * The ready endpoints behind a Service port. A missing Service or port, or no
 * ready endpoint, gives none (nginx answers 503). ExternalName Services give
 * their DNS name, which the data plane resolves. Kubernetes does not check an
 * EndpointSlice's port range, nor its addresses against its addressType: a
 * port outside 1-65535 or an address that is not an IP of the slice's family
 * (FQDN slices included: nginx connects to IPs) would make the Lua refuse the
 * whole backends document, so such endpoints are left out, each told in
 * `dropped`, and the others stay.
 */
export function endpointsForService(ref: ServiceReference, lookup: ServiceLookup, dropped: string[], controllerZone?: string): Endpoint[] {
  const service = lookup.service(`${ref.namespace}/${ref.name}`);
  if (!service) return [];
  const servicePort = (service.spec?.ports ?? []).find((port) =>
    typeof ref.port === 'number' ? port.port === ref.port : port.name === ref.port,
  );
  if (service.spec?.type === 'ExternalName') {
    const externalName = service.spec.externalName;
    const port = servicePort?.port ?? (typeof ref.port === 'number' ? ref.port : undefined);
    return externalName && port !== undefined ? [{ address: externalName, port }] : [];
  }
  if (!servicePort) return [];
  // EndpointSlice ports carry the Service port's name ("" when unnamed).
  const portName = servicePort.name ?? '';
  const unique = new Map<string, Endpoint>();
  const zone = hintZoneFor(service, controllerZone);
  for (const slice of lookup.endpointSlicesOfService(`${ref.namespace}/${ref.name}`)) {
    const slicePort = (slice.ports ?? []).find((port) => (port.name ?? '') === portName);
    if (slicePort?.port === undefined) continue;
    const where = `EndpointSlice ${ref.namespace}/${slice.metadata?.name ?? ''}`;
    if (!Number.isInteger(slicePort.port) || slicePort.port < 1 || slicePort.port > 65535) {
      dropped.push(`${where}: port ${quoteValue(String(slicePort.port))} is not from 1 to 65535; its endpoints are left out`);
      continue;
    }
    const isAddress = ADDRESS_CHECKS[slice.addressType ?? ''];
    for (const endpoint of endpointsForZone(slice, service, zone)) {
      // ready unset means ready (the EndpointSlice API's contract).
      if (endpoint.conditions?.ready === false) continue;
      for (const address of endpoint.addresses ?? []) {
        if (isAddress?.(address) !== true) {
          dropped.push(
            `${where}: address ${quoteValue(address)} is not an IP of its addressType ${quoteValue(slice.addressType ?? '')}; left out`,
          );
          continue;
        }
        unique.set(`${address}:${slicePort.port}`, { address, port: slicePort.port });
      }
    }
  }
  return [...unique.values()].sort((a, b) => (a.address === b.address ? a.port - b.port : a.address < b.address ? -1 : 1));
}

/** The address families an EndpointSlice may hold whose addresses nginx can connect to. */
const ADDRESS_CHECKS: Readonly<Record<string, (address: string) => boolean>> = { IPv4: isIPv4, IPv6: isIPv6 };

/**
 * A backend without a canary; who sets its balancing is the caller's rule.
 * `refused`: why endpoints the Service gives were left out (for its Ingresses' Events); EndpointSlice
 * entries nginx could not use go to `dropped` (the model's warnings).
 * IP literals are checked here; a DNS name (ExternalName) is checked once resolved (src/dataplane/resolveExternalNames.ts).
 */
export function buildBackend(
  ref: ServiceReference,
  lookup: ServiceLookup,
  balancing: Balancing,
  policy: EndpointPolicy,
  dropped: string[],
): { backend: Backend; refused: string[] } {
  const service = lookup.service(`${ref.namespace}/${ref.name}`);
  const externalNameRefused = service?.spec?.type === 'ExternalName' && !policy.externalNames;
  const found = externalNameRefused ? [] : endpointsForService(ref, lookup, dropped, policy.topologyZone);
  const literals: Endpoint[] = [];
  const names: Endpoint[] = [];
  for (const endpoint of found) (parseAddress(endpoint.address) === undefined ? names : literals).push(endpoint);
  const checked = refuseSelfEndpoints(literals, policy.guard);
  return {
    backend: {
      name: backendName(ref),
      service: { namespace: ref.namespace, name: ref.name, port: ref.port },
      endpoints: [...checked.endpoints, ...names],
      balancing,
      canary: undefined,
    },
    refused: externalNameRefused ? ['the Service is of type ExternalName, which --disable-svc-external-name refuses'] : checked.refused,
  };
}
