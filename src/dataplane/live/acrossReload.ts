// While nginx loads a new nginx.conf, the old one keeps serving: for the
// length of a reload (seconds with thousands of Ingresses), or for good when
// nginx refuses the new text. Its locations still name the backends, and its
// TLS servers the certificates, that the new configuration drops, so the live
// state pushed before a reload must hold both. The data plane pushes the next
// configuration's own live state once the reload is done.
import type { Configuration } from '../../model/types.js';

/** `next`, plus the backends, certificates and servers of `running` that `next` no longer has; `next` itself when it drops none. */
export function acrossReload(running: Configuration, next: Configuration): Configuration {
  const servers = droppedBy(next.servers, running.servers, (server) => server.hostname);
  const backends = droppedBy(next.backends, running.backends, (backend) => backend.name);
  const certificates = droppedBy(next.certificates, running.certificates, (certificate) => certificate.id);
  if (servers.length + backends.length + certificates.length === 0) return next;
  return {
    ...next,
    servers: [...next.servers, ...servers],
    backends: [...next.backends, ...backends],
    certificates: [...next.certificates, ...certificates],
  };
}

function droppedBy<T>(kept: readonly T[], before: readonly T[], key: (item: T) => string): T[] {
  const keys = new Set(kept.map(key));
  return before.filter((item) => !keys.has(key(item)));
}
