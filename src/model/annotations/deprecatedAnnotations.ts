// The annotations ingress-nginx's admission webhook warns about as deprecated:
// two old aliases that still work, and names it stopped parsing long ago.
// Warnings only: what the sync loop does with them is decided elsewhere.
// Maps, not objects: a name such as `constructor` must not find Object.prototype's.

/** Deprecated name → canonical name (both work; the canonical one wins when both are set). */
const DEPRECATED_ALIASES: ReadonlyMap<string, string> = new Map(
  Object.entries({
    'whitelist-source-range': 'allowlist-source-range',
    'limit-whitelist': 'limit-allowlist',
  }),
);

/** Names ingress-nginx no longer parses, with what replaced them. */
const REMOVED: ReadonlyMap<string, string> = new Map(
  Object.entries({
    'secure-verify-ca-secret': 'use proxy-ssl-secret instead',
    'enable-influxdb': 'the InfluxDB module was removed',
    'influxdb-measurement': 'the InfluxDB module was removed',
    'influxdb-port': 'the InfluxDB module was removed',
    'influxdb-host': 'the InfluxDB module was removed',
    'influxdb-server-name': 'the InfluxDB module was removed',
  }),
);

/** One warning per deprecated annotation under `<prefix>/`, sorted by name. */
export function deprecationWarnings(annotations: Readonly<Record<string, string>> | undefined, prefix: string): string[] {
  const keyPrefix = `${prefix}/`;
  const warnings: string[] = [];
  for (const key of Object.keys(annotations ?? {}).sort()) {
    if (!key.startsWith(keyPrefix)) continue;
    const name = key.slice(keyPrefix.length);
    const canonical = DEPRECATED_ALIASES.get(name);
    if (canonical !== undefined) warnings.push(`annotation ${key} is deprecated; use ${keyPrefix}${canonical}`);
    const removed = REMOVED.get(name);
    if (removed !== undefined) warnings.push(`annotation ${key} is deprecated and has no effect; ${removed}`);
  }
  return warnings;
}
