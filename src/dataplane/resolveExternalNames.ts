// ExternalName Services name a DNS host. A static nginx upstream would resolve
// it once at reload and refuse the whole configuration if it does not
// resolve, so Portico resolves it first and treats failure as "no endpoints".
// What a name resolves to is checked as the model checks IP literals: a name
// may stand for Portico itself (`localhost`, anything resolving to loopback).
// Only IP literals reach nginx.
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { refuseSelfEndpoints, type EndpointGuard } from '../model/selfAddress.js';
import type { Configuration, Endpoint } from '../model/types.js';

export type HostResolver = (host: string) => Promise<string[]>;

export const systemResolver: HostResolver = async (host) => (await lookup(host, { all: true })).map((entry) => entry.address);

/** Told of each endpoint left out, with the backend it was resolved for. */
export type RefusedEndpoint = (backend: string, message: string) => void;

export async function resolveExternalNames(
  configuration: Configuration,
  guard: EndpointGuard,
  refused: RefusedEndpoint,
  resolve: HostResolver = systemResolver,
): Promise<Configuration> {
  if (!configuration.backends.some((backend) => backend.endpoints.some((endpoint) => isIP(endpoint.address) === 0))) {
    return configuration;
  }
  const backends = await Promise.all(
    configuration.backends.map(async (backend) => {
      if (backend.endpoints.every((endpoint) => isIP(endpoint.address) !== 0)) return backend;
      const endpoints: Endpoint[] = [];
      for (const endpoint of backend.endpoints) {
        if (isIP(endpoint.address) !== 0) {
          endpoints.push(endpoint);
          continue;
        }
        const addresses = await resolve(endpoint.address).catch(() => []);
        // A resolver answers addresses; anything else is dropped with the self addresses.
        const checked = refuseSelfEndpoints(
          addresses.filter((address) => isIP(address) !== 0).map((address) => ({ address, port: endpoint.port })),
          guard,
        );
        for (const message of checked.refused) refused(backend.name, `${endpoint.address} resolves to ${message}`);
        endpoints.push(...checked.endpoints);
      }
      return { ...backend, endpoints };
    }),
  );
  return { ...configuration, backends };
}
