// What nginx learns without a reload: the endpoints and balancing of every
// backend, and the certificates by host. Serialised once per configuration;
// the pusher sends a part only when its text changed.
import type { Configuration, Endpoint } from '../../model/types.js';

export interface LiveBackend {
  name: string;
  endpoints: Endpoint[];
  loadBalance: 'round_robin';
}

export interface LiveState {
  /** JSON for POST /configuration/backends. */
  backends: string;
  /** JSON for POST /configuration/certificates. */
  certificates: string;
}

export function liveStateOf(configuration: Configuration): LiveState {
  const backends: LiveBackend[] = configuration.backends.map((backend) => ({
    name: backend.name,
    endpoints: backend.endpoints,
    loadBalance: 'round_robin',
  }));
  const servers: Record<string, string> = {};
  for (const server of configuration.servers) {
    if (server.certificate !== undefined) servers[server.hostname] = server.certificate;
  }
  const certificates: Record<string, string> = {};
  for (const certificate of configuration.certificates) {
    certificates[certificate.id] = `${certificate.certificatePem.trimEnd()}\n${certificate.keyPem.trimEnd()}\n`;
  }
  return {
    backends: JSON.stringify({ backends }),
    certificates: JSON.stringify({ certificates, servers, default: configuration.defaultCertificate ?? null }),
  };
}
