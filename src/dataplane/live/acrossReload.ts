// While nginx loads a new nginx.conf, the old one keeps serving: for the
// length of a reload (seconds with thousands of Ingresses), or for good when
// nginx refuses the new text. Its locations still name the backends, and its
// TLS servers the certificates, that the new configuration drops, so the live
// state pushed before a reload must hold both. The data plane pushes the next
// configuration's own live state once the reload is done.
import type { Configuration } from '../../model/types.js';

/** `next`, plus the backends, certificates and servers of `running` that `next` no longer has. */
export function acrossReload(running: Configuration, next: Configuration): Configuration {
  return {
    ...next,
    servers: [...next.servers, ...droppedBy(next.servers, running.servers, (server) => server.hostname)],
    backends: [...next.backends, ...droppedBy(next.backends, running.backends, (backend) => backend.name)],
    certificates: [...next.certificates, ...droppedBy(next.certificates, running.certificates, (certificate) => certificate.id)],
  };
}

function droppedBy<T>(kept: readonly T[], before: readonly T[], key: (item: T) => string): T[] {
  const keys = new Set(kept.map(key));
  return before.filter((item) => !keys.has(key(item)));
}
