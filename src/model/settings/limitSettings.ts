// The ConfigMap's side of the rate and connection limits: the status a refused
// request gets and the key clients are counted by.
import { isKnownLogVariable } from './logFormatVariables.js';
import { integerParser, quoteValue, type ValueParser } from './valueSyntax.js';

/** limit-req-status-code, limit-conn-status-code: nginx's limit_req_status and limit_conn_status take 400 to 599. */
export const parseLimitStatusCode = integerParser(400, 599);

/**
 * limit-conn-zone-variable: the key of every limit zone, such as the default
 * `$binary_remote_addr` or `$http_x_api_key`. Variables, optionally joined by
 * plain characters (`$binary_remote_addr:$host`); every variable must be one
 * nginx.conf has, else nginx refuses the whole configuration. nginx does not count
 * a request whose key is empty.
 */
export const parseLimitZoneKey: ValueParser<string> = (text) => {
  const expected = 'nginx variables such as $binary_remote_addr, optionally joined by letters, digits, "_", "-", "." or ":"';
  if (!/^(?:\$[A-Za-z0-9_]+|\$\{[A-Za-z0-9_]+\}|[A-Za-z0-9_.:-])*$/.test(text) || !text.includes('$')) return { ok: false, expected };
  for (const [, bare, braced] of text.matchAll(/\$(?:([A-Za-z0-9_]+)|\{([A-Za-z0-9_]+)\})/g)) {
    const name = bare ?? braced ?? '';
    if (!isKnownLogVariable(name))
      return { ok: false, expected: `${expected}; ${quoteValue(`$${name}`)} is not a variable nginx.conf has` };
  }
  return { ok: true, value: text };
};
