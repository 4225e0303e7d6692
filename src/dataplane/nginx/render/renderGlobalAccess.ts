// The ConfigMap's global filters (globalAccessSettings.ts), where ingress-nginx
// renders them: block-cidrs as `deny` in the http block (a location with its own
// allow/deny, e.g. whitelist-source-range, replaces them there, as in nginx and
// ingress-nginx), block-user-agents and block-referers as maps whose match
// answers 403 in every server before any location runs. Nothing at all with
// the defaults.
import type { BlockPattern } from '../../../model/settings/keys/globalAccessSettings.js';
import type { GlobalSettings } from '../../../model/settings/globalSettings.js';
import { ifEquals, literal, raw } from './arguments.js';
import type { ConfigBuilder } from './configBuilder.js';
import { escapeRegex, matchLimited } from './regex.js';

const BLOCKED_USER_AGENT = '$block_ua';
const BLOCKED_REFERER = '$block_ref';

/**
 * nginx's map keeps exact keys in a hash whose buckets hold map_hash_bucket_size
 * (64) bytes: a key longer than this makes nginx refuse the configuration, so a
 * longer one is matched by the regex meaning the same (anchored, ignoring case).
 */
const MAX_HASHED_KEY_BYTES = 46;

/** Map keys nginx reads as parameters, not strings, unless escaped with a leading `\`. */
const MAP_PARAMETERS: ReadonlySet<string> = new Set(['default', 'hostnames', 'include', 'volatile']);

export function renderGlobalAccessHttp(http: ConfigBuilder, settings: GlobalSettings): void {
  for (const cidr of settings.blockCidrs) http.directive('deny', raw.cidr(cidr));
  renderBlockMap(http, '$http_user_agent', BLOCKED_USER_AGENT, settings.blockUserAgents);
  renderBlockMap(http, '$http_referer', BLOCKED_REFERER, settings.blockReferers);
}

/** In every server block: a blocked User-Agent or Referer gets 403, whatever the location. */
export function renderGlobalAccessServer(server: ConfigBuilder, settings: GlobalSettings): void {
  for (const [patterns, variable] of [
    [settings.blockUserAgents, BLOCKED_USER_AGENT],
    [settings.blockReferers, BLOCKED_REFERER],
  ] as const) {
    if (patterns.length === 0) continue;
    server.block('if', ifEquals(variable, 'on'), (branch) => {
      branch.directive('return', raw.integer(403));
    });
  }
}

/**
 * Portico's status server (the controller's health check of nginx, on the
 * loopback address) is not a host: block-cidrs holding 127.0.0.1 must not make
 * the controller restart a healthy nginx.
 */
export function renderGlobalAccessExemption(server: ConfigBuilder, settings: GlobalSettings): void {
  if (settings.blockCidrs.length > 0) server.directive('allow', raw.keyword('all'));
}

function renderBlockMap(http: ConfigBuilder, source: string, variable: string, patterns: readonly BlockPattern[]): void {
  if (patterns.length === 0) return;
  http.block('map', [raw.variable(source), raw.variable(variable)], (map) => {
    map.entry(raw.keyword('default'), raw.keyword('off'));
    for (const key of new Set(patterns.map(mapKey))) map.entry(literal(key), raw.keyword('on'));
  });
}

/** The key nginx's map reads as `pattern` (it removes the quotes literal() adds). */
function mapKey(pattern: BlockPattern): string {
  if (pattern.kind === 'regex') return `${pattern.caseInsensitive ? '~*' : '~'}${matchLimited(pattern.pattern)}`;
  const { value } = pattern;
  if (Buffer.byteLength(value) > MAX_HASHED_KEY_BYTES) return `~*${matchLimited(`^${escapeRegex(value)}$`)}`;
  // A leading `\` is removed by nginx, so `~...`, `\...` and the parameter names stay strings.
  return /^[~\\]/.test(value) || MAP_PARAMETERS.has(value) ? `\\${value}` : value;
}
