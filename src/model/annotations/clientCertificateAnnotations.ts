// auth-tls-*: client certificates (mTLS), as ingress-nginx's "authtls" group.
// The values are parsed here from the Ingress alone; the Secret they name is
// read by clientCertificateSecret.ts, and the host's verification is chosen
// from its Ingresses by hostClientCertificates.ts (it is a server setting in
// nginx, as in ingress-nginx).
import { parseObjectReference, type ObjectReference } from '../objectReference.js';
import { analyzePortableRegex, portableRegexSyntax } from '../settings/portableRegex.js';
import { optionParser, parseBoolean, parseNonNegativeInteger, type ParsedValue } from '../settings/valueSyntax.js';
import type { ClientCertificateAnnotations, ClientVerification } from '../types.js';
import { issuesIfSet, type AnnotationDefinition, type AnnotationGroup } from './annotationDefinition.js';

/** ingress-nginx's defaults (authtls/main.go). */
const DEFAULT_VERIFY_CLIENT: ClientVerification = 'on';
const DEFAULT_VERIFY_DEPTH = 1;

/** The longest auth-tls-match-cn regex (it runs against every request's subject DN). */
export const MAX_MATCH_CN_LENGTH = 256;

const secret: AnnotationDefinition<ObjectReference> = {
  name: 'auth-tls-secret',
  // The risk levels are ingress-nginx's.
  risk: 'Medium',
  parse: parseObjectReference,
};

const verifyClient: AnnotationDefinition<ClientVerification> = {
  name: 'auth-tls-verify-client',
  risk: 'Medium',
  parse: optionParser<ClientVerification>(['on', 'off', 'optional', 'optional_no_ca']),
};

const verifyDepth: AnnotationDefinition<number> = { name: 'auth-tls-verify-depth', risk: 'Low', parse: parseNonNegativeInteger };

const errorPage: AnnotationDefinition<string> = { name: 'auth-tls-error-page', risk: 'High', parse: parseErrorPage };

const passCertificateToUpstream: AnnotationDefinition<boolean> = {
  name: 'auth-tls-pass-certificate-to-upstream',
  risk: 'Low',
  parse: parseBoolean,
};

const matchCn: AnnotationDefinition<string> = { name: 'auth-tls-match-cn', risk: 'High', parse: parseMatchCn };

const ERROR_PAGE_EXPECTED =
  'an http(s) URL or a path starting with "/" (host names, ports and path segments of letters, digits, "-", "_" and "." only)';
const PATH = /^(?:\/[A-Za-z0-9._-]+)*\/?$/;
const HOST = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/**
 * Where a request whose certificate failed verification (nginx's 495 and 496)
 * is sent: ingress-nginx's grammar (an optional http(s)://host[:port], then
 * path segments), without its named locations (`@name` would reach Portico's
 * own) and without a scheme-less host (nginx would redirect to it as a
 * relative path). The value is rebuilt from its parts, so what is rendered is
 * exactly what was checked.
 */
export function parseErrorPage(text: string): ParsedValue<string> {
  const refused = { ok: false, expected: ERROR_PAGE_EXPECTED } as const;
  const url = /^(https?):\/\/([^/:]+)(?::([0-9]{1,5}))?(\/.*)?$/.exec(text);
  if (url === null) return text.startsWith('/') && PATH.test(text) ? { ok: true, value: text } : refused;
  const [, scheme = '', host = '', port, path = ''] = url;
  if (!HOST.test(host) || host.length > 253 || !PATH.test(path)) return refused;
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65535)) return refused;
  return { ok: true, value: `${scheme}://${host.toLowerCase()}${port === undefined ? '' : `:${Number(port)}`}${path}` };
}

/**
 * ingress-nginx's auth-tls-match-cn: `CN=` then a regex; the whole value
 * (with its `CN=`) is matched against the client certificate's subject DN,
 * unanchored, so `CN=a` admits any DN containing `CN=a`. Only the portable
 * subset is admitted (CVE-2025-1097 injected nginx directives through it).
 */
export function parseMatchCn(text: string): ParsedValue<string> {
  const expected = `"CN=" followed by ${portableRegexSyntax(MAX_MATCH_CN_LENGTH - 3)}`;
  if (!text.startsWith('CN=')) return { ok: false, expected };
  const analysis = analyzePortableRegex(text, MAX_MATCH_CN_LENGTH);
  return analysis.ok ? { ok: true, value: text } : { ok: false, expected: `${expected}; ${analysis.problem}` };
}

const MODIFIERS = [verifyClient, verifyDepth, errorPage, passCertificateToUpstream, matchCn];

export const clientCertificateAnnotations: AnnotationGroup<ClientCertificateAnnotations | undefined> = {
  annotations: [secret, ...MODIFIERS],
  // As ingress-nginx: without the Secret there is nothing to verify against, and the others do nothing.
  issues: (values) =>
    values.get(secret) === undefined ? issuesIfSet(values, MODIFIERS, 'ignored', 'ignored without auth-tls-secret') : [],
  resolve: (values) => {
    const reference = values.get(secret);
    if (reference === undefined) return undefined;
    const depth = values.get(verifyDepth);
    return {
      secret: reference,
      verifyClient: values.get(verifyClient) ?? DEFAULT_VERIFY_CLIENT,
      // As ingress-nginx, 0 means the default.
      verifyDepth: depth === undefined || depth === 0 ? DEFAULT_VERIFY_DEPTH : depth,
      errorPage: values.get(errorPage),
      passCertificateToUpstream: values.get(passCertificateToUpstream) ?? false,
      matchCn: values.get(matchCn),
    };
  },
};
