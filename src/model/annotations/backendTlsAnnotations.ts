// proxy-ssl-*: how nginx speaks TLS to an HTTPS or GRPCS backend (ingress-nginx's
// "proxyssl" parser). As there, the group takes effect only with proxy-ssl-secret;
// the other annotations alone have no effect, and proxy-ssl-verify: on alone is
// refused (ignoring it would connect without the verification it asks for). The
// Secret is looked up by the model on every run (backendTlsSecret.ts).
import { parseObjectReference } from '../objectReference.js';
import { parseSslProtocols } from '../settings/parseGlobalSettings.js';
import { parseSslCiphers } from '../settings/sslCiphers.js';
import { integerParser, optionParser, quoteValue, type ValueParser } from '../settings/valueSyntax.js';
import type { BackendTls } from '../types.js';
import { issuesIfSet, type AnnotationDefinition, type AnnotationGroup, type AnnotationIssue } from './annotationDefinition.js';

/** ingress-nginx's defaults, which apply once proxy-ssl-secret is set. */
export const BACKEND_TLS_DEFAULTS = { ciphers: 'DEFAULT', protocols: ['TLSv1.2'], verifyDepth: 1 } as const;

const parseOnOff = optionParser(['on', 'off']);

/**
 * The variables proxy-ssl-name may use: names of the request or of the
 * server, all defined in every location, so nginx never refuses the reload
 * for an unknown one.
 */
const NAME_VARIABLES: ReadonlySet<string> = new Set([
  'host',
  'http_host',
  'best_http_host',
  'server_name',
  'ssl_server_name',
  'proxy_host',
]);

// nginx reads `$name` greedily over [A-Za-z0-9_], so the same pattern decides where a name ends.
const NAME_PART = /\$\{([A-Za-z0-9_]+)\}|\$([A-Za-z0-9_]+)|([A-Za-z0-9.-]+)/y;
const HOST_NAME = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;
const NAME_EXPECTED = `a host name, or host name characters with the variables ${[...NAME_VARIABLES].map((name) => `$${name}`).join(', ')}`;

/** proxy-ssl-name: a host name, or an nginx expression of host name characters and the variables above. */
export const parseProxySslName: ValueParser<string> = (text) => {
  if (!text.includes('$')) return HOST_NAME.test(text) ? { ok: true, value: text } : { ok: false, expected: NAME_EXPECTED };
  if (text.length > 253) return { ok: false, expected: `${NAME_EXPECTED}, at most 253 characters` };
  for (let at = 0; at < text.length; at = NAME_PART.lastIndex) {
    NAME_PART.lastIndex = at;
    const part = NAME_PART.exec(text);
    if (part === null) return { ok: false, expected: NAME_EXPECTED };
    const variable = part[1] ?? part[2];
    if (variable !== undefined && !NAME_VARIABLES.has(variable)) {
      return { ok: false, expected: `${NAME_EXPECTED}; ${quoteValue(`$${variable}`)} is not one of them` };
    }
  }
  return { ok: true, value: text };
};

/** Sorted and without repeats, as ingress-nginx writes them (one configuration per set). */
const parseProtocols: ValueParser<string[]> = (text) => {
  const parsed = parseSslProtocols(text);
  return parsed.ok ? { ok: true, value: [...new Set(parsed.value)].sort() } : parsed;
};

const proxySslSecret: AnnotationDefinition<BackendTls['secret']> = {
  name: 'proxy-ssl-secret',
  risk: 'Medium',
  parse: parseObjectReference,
};

const proxySslVerify: AnnotationDefinition<'on' | 'off'> = { name: 'proxy-ssl-verify', risk: 'Low', parse: parseOnOff };

// 0 means the default, as in ingress-nginx; the bound is far beyond any real chain.
const proxySslVerifyDepth: AnnotationDefinition<number> = { name: 'proxy-ssl-verify-depth', risk: 'Low', parse: integerParser(0, 100) };

const proxySslName: AnnotationDefinition<string> = { name: 'proxy-ssl-name', risk: 'High', parse: parseProxySslName };

const proxySslServerName: AnnotationDefinition<'on' | 'off'> = { name: 'proxy-ssl-server-name', risk: 'Low', parse: parseOnOff };

const proxySslCiphers: AnnotationDefinition<string> = { name: 'proxy-ssl-ciphers', risk: 'Medium', parse: parseSslCiphers };

const proxySslProtocols: AnnotationDefinition<string[]> = { name: 'proxy-ssl-protocols', risk: 'Low', parse: parseProtocols };

const IGNORED = 'ignored: it has no effect without proxy-ssl-secret';

const MODIFIERS = [proxySslVerifyDepth, proxySslName, proxySslServerName, proxySslCiphers, proxySslProtocols];

export const backendTlsAnnotations: AnnotationGroup<BackendTls | undefined> = {
  annotations: [proxySslSecret, proxySslVerify, ...MODIFIERS],
  issues: (values) => {
    if (values.get(proxySslSecret) !== undefined) return [];
    const issues: AnnotationIssue[] = issuesIfSet(values, MODIFIERS, 'ignored', IGNORED);
    if (values.get(proxySslVerify) === 'on') {
      issues.push({
        annotation: proxySslVerify,
        verdict: 'refused',
        reason: 'it needs proxy-ssl-secret with the ca.crt to verify the backend against; ignoring it would connect unverified',
      });
    } else {
      issues.push(...issuesIfSet(values, [proxySslVerify], 'ignored', IGNORED));
    }
    return issues;
  },
  resolve: (values) => {
    const secret = values.get(proxySslSecret);
    if (secret === undefined) return undefined;
    const depth = values.get(proxySslVerifyDepth) ?? 0;
    return {
      secret,
      files: undefined,
      verify: values.get(proxySslVerify) === 'on',
      verifyDepth: depth === 0 ? BACKEND_TLS_DEFAULTS.verifyDepth : depth,
      ciphers: values.get(proxySslCiphers) ?? BACKEND_TLS_DEFAULTS.ciphers,
      protocols: values.get(proxySslProtocols) ?? [...BACKEND_TLS_DEFAULTS.protocols],
      name: values.get(proxySslName),
      serverName: values.get(proxySslServerName) === 'on',
    };
  },
};
