// SSL passthrough's hosts (ingress-nginx's getConfiguration): with
// --enable-ssl-passthrough, every host one of whose Ingresses sets
// `ssl-passthrough: "true"` has its TLS connections sent, undecrypted, by SNI
// to the endpoints of the backend of its `/` location; its other paths are
// not passed through (a warning on their Ingress), and its plain-HTTP server
// stays as it is (redirects to HTTPS included). Without the flag the
// annotation only warns: the host is served with TLS terminated.
import { createHash } from 'node:crypto';
import { isIP } from 'node:net';
import type { AcceptedIngress } from '../buildConfiguration.js';
import { CATCH_ALL, ingressRef, ruleHost, sameIngress } from '../ingressRules.js';
import type { Backend, Endpoint, IngressProblem, IngressRef, Server } from '../types.js';
import type { PassthroughHost, StreamConfiguration } from './streamTypes.js';

/** The path whose backend a passthrough host's connections go to, as ingress-nginx's rootLocation. */
const ROOT_PATH = '/';

export type SslPassthroughParts = Pick<StreamConfiguration, 'sslPassthrough' | 'passthroughHosts'>;

/**
 * `enabled`: --enable-ssl-passthrough. `ingresses` oldest first, `servers`
 * and `backends` as the model finished them (their endpoints already passed
 * the self-endpoint guard).
 */
export function sslPassthroughParts(
  enabled: boolean,
  ingresses: readonly AcceptedIngress[],
  servers: readonly Server[],
  backends: readonly Backend[],
  problems: IngressProblem[],
): SslPassthroughParts {
  const asking = hostsAsking(ingresses);
  if (!enabled) {
    for (const ingress of uniqueIngresses([...asking.values()].flat())) {
      problems.push(
        warning(
          ingress,
          'AnnotationWarning',
          'annotation ssl-passthrough needs --enable-ssl-passthrough; the TLS of its hosts is terminated by Portico',
        ),
      );
    }
    return { sslPassthrough: false, passthroughHosts: [] };
  }
  const byName = new Map(backends.map((backend) => [backend.name, backend]));
  const passthroughHosts: PassthroughHost[] = [];
  for (const server of servers) {
    const ingressesOfHost = asking.get(server.hostname);
    if (ingressesOfHost === undefined) continue;
    const root = server.locations.find((location) => location.path === ROOT_PATH);
    const chooser = root?.ingress ?? ingressesOfHost[0]!;
    for (const location of server.locations) {
      if (location === root || location.ingress === undefined) continue;
      problems.push(
        warning(
          location.ingress,
          'SslPassthroughPathIgnored',
          `host ${server.hostname} passes its TLS connections through to the backend of its / path; the path ${location.path} is served over plain HTTP only`,
        ),
      );
    }
    const backend = root?.backend === undefined ? undefined : byName.get(root.backend);
    passthroughHosts.push({
      hostname: server.hostname,
      upstreamName: passthroughUpstreamName(server.hostname),
      endpoints: ipEndpoints(server.hostname, backend, chooser, problems),
      ingress: chooser,
    });
  }
  return { sslPassthrough: true, passthroughHosts: passthroughHosts.sort((a, b) => (a.hostname < b.hostname ? -1 : 1)) };
}

/** Rule hosts → the Ingresses (oldest first) asking for passthrough; canaries have no locations of their own, so no say. */
function hostsAsking(ingresses: readonly AcceptedIngress[]): Map<string, IngressRef[]> {
  const asking = new Map<string, IngressRef[]>();
  for (const { ingress, annotations } of ingresses) {
    if (annotations.location.sslPassthrough !== true || annotations.canary) continue;
    const ref = ingressRef(ingress);
    for (const rule of ingress.spec?.rules ?? []) {
      const host = ruleHost(rule);
      if (host === CATCH_ALL) continue;
      const list = asking.get(host) ?? [];
      if (!list.some((known) => sameIngress(known, ref))) list.push(ref);
      asking.set(host, list);
    }
  }
  return asking;
}

/** A hostname an upstream name can show as it is: DNS labels, a wildcard's `*.` first. */
const READABLE_HOSTNAME = /^(\*\.)?[a-z0-9]([a-z0-9.-]{0,200}[a-z0-9])?$/;

/**
 * The stream upstream of a host, one per hostname: the hostname itself (a
 * wildcard's `*`, which an upstream name cannot hold, as `_`, which no such
 * hostname has), or a digest of any other name, so that no hostname makes an invalid upstream name.
 */
export function passthroughUpstreamName(hostname: string): string {
  if (READABLE_HOSTNAME.test(hostname)) return `passthrough-${hostname.replace('*', '_')}`;
  return `passthrough-${createHash('sha256').update(hostname).digest('hex').slice(0, 16)}`;
}

/** nginx's stream upstreams take IP literals only: an ExternalName's DNS name is left out, with a warning. */
function ipEndpoints(hostname: string, backend: Backend | undefined, ingress: IngressRef, problems: IngressProblem[]): Endpoint[] {
  const endpoints = backend?.endpoints ?? [];
  const named = endpoints.filter((endpoint) => isIP(endpoint.address) === 0);
  if (named.length > 0) {
    problems.push(
      warning(
        ingress,
        'SslPassthroughEndpointIgnored',
        `host ${hostname}: ssl-passthrough needs IP endpoints; ${named.map((endpoint) => endpoint.address).join(', ')} left out`,
      ),
    );
  }
  return endpoints.filter((endpoint) => isIP(endpoint.address) !== 0);
}

function uniqueIngresses(refs: readonly IngressRef[]): IngressRef[] {
  const unique: IngressRef[] = [];
  for (const ref of refs) if (!unique.some((known) => sameIngress(known, ref))) unique.push(ref);
  return unique;
}

function warning(ingress: IngressRef, reason: string, message: string): IngressProblem {
  return { ingress, severity: 'warning', reason, message };
}
