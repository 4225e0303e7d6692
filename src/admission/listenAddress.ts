// `--validating-webhook` takes a Go listen address: `:8443` (every
// interface), `127.0.0.1:8443` or `[::1]:8443`.

export interface ListenAddress {
  /** undefined: every interface. */
  host: string | undefined;
  port: number;
}

const ADDRESS = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:[\]]*)):(\d{1,5})$/;

export function parseListenAddress(value: string): ListenAddress {
  const match = ADDRESS.exec(value);
  const port = Number(match?.[3]);
  if (!match || port > 65535) throw new Error(`invalid listen address "${value}" (expected host:port or :port)`);
  const host = match[1] ?? match[2];
  return { host: host === '' ? undefined : host, port };
}
