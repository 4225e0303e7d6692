// ssl-ciphers and ssl-prefer-server-ciphers: the cipher list (TLS 1.2 and
// older; TLS 1.3 suites are not set by ssl_ciphers) and who picks from it, for
// a whole host, as ingress-nginx's "sslcipher" group. They are parsed per
// Ingress here; the host's value of each is its oldest Ingress's that sets it
// (hostTlsCiphers), as ingress-nginx's createServers decides.
import { checkSslCiphers } from '../settings/sslCiphers.js';
import { parseBoolean, quoteValue, type ValueParser } from '../settings/valueSyntax.js';
import type { IngressRef } from '../types.js';
import type { AnnotationDefinition, AnnotationGroup, AnnotationIssue } from './annotationDefinition.js';

/** One Ingress's values; undefined when it sets neither. */
export interface TlsCipherAnnotations {
  /** `ssl-ciphers`: an OpenSSL cipher list. */
  ciphers: CipherList | undefined;
  /** `ssl-prefer-server-ciphers`: the server's order decides, not the client's. */
  preferServerCiphers: boolean | undefined;
}

export interface CipherList {
  list: string;
  /** Words OpenSSL does not know and skips (`EXPORT56` of older guides): a warning, not a refusal. */
  unknownWords: string[];
}

/** A host's choice, each value with the Ingress it comes from (its lines are that Ingress's, for refusal containment). */
export interface HostTlsCiphers {
  ciphers?: { list: string; ingress: IngressRef };
  preferServerCiphers?: { prefer: boolean; ingress: IngressRef };
}

/**
 * ingress-nginx's pattern (sslcipher/main.go): cipher words of letters, digits,
 * `!:+-_`, and the commands @STRENGTH and @SECLEVEL=0..5. Written as one
 * alternation (the same language as its nested stars), so it runs in linear time.
 */
const INGRESS_NGINX_CIPHERS = /^(?:[A-Za-z0-9!:+_-]|@STRENGTH|@SECLEVEL=[0-5])*$/;

const CIPHERS_EXPECTED = 'an OpenSSL cipher list of letters, digits, "!", ":", "+", "-", "_", @STRENGTH and @SECLEVEL=0..5';

/** ingress-nginx's pattern, then what OpenSSL (and so nginx) needs: valid commands and at least one cipher selected. */
export const parseCipherList: ValueParser<CipherList> = (text) => {
  if (!INGRESS_NGINX_CIPHERS.test(text)) return { ok: false, expected: CIPHERS_EXPECTED };
  const checked = checkSslCiphers(text);
  return checked.ok ? { ok: true, value: { list: text, unknownWords: checked.value.unknownWords } } : checked;
};

const sslCiphers: AnnotationDefinition<CipherList> = {
  name: 'ssl-ciphers',
  // The risk levels are ingress-nginx's.
  risk: 'Low',
  parse: parseCipherList,
};

const sslPreferServerCiphers: AnnotationDefinition<boolean> = { name: 'ssl-prefer-server-ciphers', risk: 'Low', parse: parseBoolean };

export const tlsCipherAnnotations: AnnotationGroup<TlsCipherAnnotations | undefined> = {
  annotations: [sslCiphers, sslPreferServerCiphers],
  issues: (values) => {
    const unknown = values.get(sslCiphers)?.unknownWords ?? [];
    if (unknown.length === 0) return [];
    const words = unknown.map((word) => quoteValue(word)).join(', ');
    const issue: AnnotationIssue = {
      annotation: sslCiphers,
      verdict: 'ignored',
      reason: `OpenSSL does not know ${words} and skips ${unknown.length === 1 ? 'it' : 'them'}; the rest of the list applies`,
    };
    return [issue];
  },
  resolve: (values) => {
    const ciphers = values.get(sslCiphers);
    const preferServerCiphers = values.get(sslPreferServerCiphers);
    return ciphers === undefined && preferServerCiphers === undefined ? undefined : { ciphers, preferServerCiphers };
  },
};
