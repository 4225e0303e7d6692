// Where an Ingress is reachable, as ingress-nginx writes it into
// `.status.loadBalancer.ingress`: pure functions from the flags, the publish
// Service, or the nodes of the controller's pods to a sorted address list.
import { isIP } from 'node:net';
import type { Node, Pod, Service } from '../kube/objects.js';

/** One entry of `.status.loadBalancer.ingress`. */
export interface LoadBalancerAddress {
  ip?: string;
  hostname?: string;
}

/** An IP address goes into `ip`, anything else into `hostname`. */
export function addressOf(nameOrIp: string): LoadBalancerAddress {
  return isIP(nameOrIp) !== 0 ? { ip: nameOrIp } : { hostname: nameOrIp };
}

/** `--publish-status-address`: a comma-separated list (ingress-nginx splits on `,\s*`). */
export function addressesFromList(list: string): LoadBalancerAddress[] {
  return list
    .split(/,\s*/)
    .map((item) => item.trim())
    .filter((item) => item !== '')
    .map(addressOf);
}

/**
 * `--publish-service`, by Service type as ingress-nginx: ExternalName → its
 * hostname; ClusterIP → the cluster IP; NodePort → the external IPs, else the
 * cluster IP; LoadBalancer → the load balancer's ingress points plus the
 * external IPs. Undefined for a type it cannot publish.
 */
export function addressesFromService(service: Service): LoadBalancerAddress[] | undefined {
  const spec = service.spec ?? {};
  const clusterIp = spec.clusterIP && spec.clusterIP !== 'None' ? [{ ip: spec.clusterIP }] : [];
  const externalIps = (spec.externalIPs ?? []).map((ip) => ({ ip }));
  switch (spec.type ?? 'ClusterIP') {
    case 'ExternalName':
      return spec.externalName ? [{ hostname: spec.externalName }] : [];
    case 'ClusterIP':
      return clusterIp;
    case 'NodePort':
      return externalIps.length > 0 ? externalIps : clusterIp;
    case 'LoadBalancer': {
      const points = (service.status?.loadBalancer?.ingress ?? []).map((point) => ({
        ...(point.ip ? { ip: point.ip } : {}),
        ...(point.hostname ? { hostname: point.hostname } : {}),
      }));
      return [...points, ...externalIps.filter((external) => !points.some((point) => point.ip === external.ip))];
    }
    default:
      return undefined;
  }
}

/**
 * Without a publish Service or address: the nodes that run a Running and Ready
 * controller pod. Each node gives its ExternalIP, else its InternalIP; with
 * `--report-node-internal-ip-address` always the InternalIP.
 */
export function addressesFromNodes(pods: readonly Pod[], nodes: ReadonlyMap<string, Node>, useInternalIp: boolean): LoadBalancerAddress[] {
  const addresses: string[] = [];
  for (const pod of pods) {
    if (pod.status?.phase !== 'Running') continue;
    if (!pod.status.conditions?.some((condition) => condition.type === 'Ready' && condition.status === 'True')) continue;
    const node = pod.spec?.nodeName ? nodes.get(pod.spec.nodeName) : undefined;
    const address = node ? nodeAddress(node, useInternalIp) : '';
    if (address !== '' && !addresses.includes(address)) addresses.push(address);
  }
  return addresses.map(addressOf);
}

export function nodeAddress(node: Node, useInternalIp: boolean): string {
  const of = (type: string): string => node.status?.addresses?.find((entry) => entry.type === type && entry.address !== '')?.address ?? '';
  const internal = of('InternalIP');
  if (useInternalIp) return internal;
  return of('ExternalIP') || internal;
}

/** Without duplicates, sorted by hostname then IP (ingress-nginx's order, so lists compare exactly). */
export function standardized(addresses: readonly LoadBalancerAddress[]): LoadBalancerAddress[] {
  const unique = new Map<string, LoadBalancerAddress>();
  for (const address of addresses) {
    const clean = { ...(address.ip ? { ip: address.ip } : {}), ...(address.hostname ? { hostname: address.hostname } : {}) };
    if (clean.ip || clean.hostname) unique.set(`${clean.hostname ?? ''}|${clean.ip ?? ''}`, clean);
  }
  return [...unique.values()].sort((a, b) => compare(a.hostname ?? '', b.hostname ?? '') || compare(a.ip ?? '', b.ip ?? ''));
}

/** Whether two lists name the same addresses (ports and ipMode are not Portico's to compare). */
export function sameAddresses(a: readonly LoadBalancerAddress[], b: readonly LoadBalancerAddress[]): boolean {
  const left = standardized(a);
  const right = standardized(b);
  return left.length === right.length && left.every((entry, i) => entry.ip === right[i]?.ip && entry.hostname === right[i]?.hostname);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
