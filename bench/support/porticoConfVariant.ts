// Portico's own rendered nginx.conf with its balancer swapped, to run beside
// Portico in another prefix and on other ports: everything a request goes
// through stays the same (headers, variables, log line, Lua hooks, TLS), only
// how `upstream_balancer` picks the peer differs. What the benchmark compares
// then is the balancing mechanism alone.

/** How `upstream_balancer` picks the peer in the variant. */
export type BalancerVariant =
  /** nginx's own round robin over one static `server` (no Lua in the balancer phase). */
  | 'static upstream'
  /**
   * balancer_by_lua that sets one constant peer: what the mechanism costs before any balancing logic.
   * It reaches ngx.balancer (loaded by portico.balancer in init_by_lua) as Portico's hooks reach their
   * modules, through tables: calling `require` per request would add its own cost (luaCall.ts).
   */
  | 'constant Lua peer';

export interface PorticoConfLocation {
  readonly prefix: string;
  /** Every port the configuration listens on, and the status port its Lua is told. */
  readonly ports: Readonly<Record<string, number>>;
}

export function porticoConfVariant(
  conf: string,
  from: PorticoConfLocation,
  to: PorticoConfLocation,
  variant: BalancerVariant,
  backend: { readonly address: string; readonly port: number },
): string {
  const portMap = new Map<string, string>();
  for (const [name, port] of Object.entries(from.ports)) {
    const target = to.ports[name];
    if (target === undefined) throw new Error(`no port for ${name} in the variant`);
    portMap.set(String(port), String(target));
  }
  const movePort = (port: string): string => {
    const target = portMap.get(port);
    if (target === undefined) throw new Error(`Portico's nginx.conf listens on ${port}, which the variant has no port for`);
    return target;
  };
  // Logs, temp and sockets move to the variant's prefix; the certificates (read by the master only) stay.
  let text = conf;
  for (const folder of ['logs', 'tmp', 'run']) text = text.split(`${from.prefix}/${folder}/`).join(`${to.prefix}/${folder}/`);
  text = text
    .replace(/^(\s*listen\s+(?:\d+\.\d+\.\d+\.\d+:|\[[0-9a-f:]*\]:)?)(\d+)\b/gm, (_, head: string, port: string) => head + movePort(port))
    .replace(/status_port = (\d+)/, (_, port: string) => `status_port = ${movePort(port)}`);

  const balancer = /(upstream upstream_balancer \{\n)(\s*)server 0\.0\.0\.1;\n\s*balancer_by_lua_block \{\n[^}]*\}\n/;
  if (!balancer.test(text)) throw new Error("Portico's nginx.conf has no upstream_balancer of the expected shape");
  const peer = `${backend.address}:${backend.port}`;
  return text.replace(balancer, (_, head: string, indent: string) =>
    variant === 'static upstream'
      ? `${head}${indent}server ${peer};\n`
      : `${head}${indent}server 0.0.0.1;\n${indent}balancer_by_lua_block {\n${indent}    package.loaded["ngx.balancer"].set_current_peer("${backend.address}", ${backend.port})\n${indent}}\n`,
  );
}
