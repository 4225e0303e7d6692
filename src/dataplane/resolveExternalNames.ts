// ExternalName Services name a DNS host. A static nginx upstream would resolve
// it once at reload and refuse the whole configuration if it does not
// resolve, so Portico resolves it first and treats failure as "no endpoints".
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { Configuration, Endpoint } from '../model/types.js';

export type HostResolver = (host: string) => Promise<string[]>;

export const systemResolver: HostResolver = async (host) => (await lookup(host, { all: true })).map((entry) => entry.address);

export async function resolveExternalNames(configuration: Configuration, resolve: HostResolver = systemResolver): Promise<Configuration> {
  if (!configuration.backends.some((backend) => backend.endpoints.some((endpoint) => isIP(endpoint.address) === 0))) {
    return configuration;
  }
  const backends = await Promise.all(
    configuration.backends.map(async (backend) => {
      const endpoints: Endpoint[] = [];
      for (const endpoint of backend.endpoints) {
        if (isIP(endpoint.address) !== 0) {
          endpoints.push(endpoint);
          continue;
        }
        const addresses = await resolve(endpoint.address).catch(() => []);
        for (const address of addresses) endpoints.push({ address, port: endpoint.port });
      }
      return { ...backend, endpoints };
    }),
  );
  return { ...configuration, backends };
}
