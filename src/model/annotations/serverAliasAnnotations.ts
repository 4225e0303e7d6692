// server-alias (ingress-nginx's "alias" group): more names for the hosts of
// the Ingress's rules, answered exactly as the host is. ingress-nginx admits
// nginx server_name regexes here (`~^www\d+\.example\.com$`); Portico admits
// DNS names and one-label wildcards (`*.example.com`), the names its server
// names, certificates and live routes are keyed by, and refuses the rest.
// Which host keeps a contested alias is the model's (hostAliases.ts).
import { listParser, type ValueParser } from '../settings/valueSyntax.js';
import type { AnnotationDefinition, AnnotationGroup } from './annotationDefinition.js';

/** An extra name a server answers (an alias, or the other side of its www redirect), with the certificate for it. */
export interface HostAlias {
  hostname: string;
  /** The server's certificate when it covers `hostname`, else undefined: the default certificate (as ingress-nginx). */
  certificate: string | undefined;
}

const DNS_NAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** A host name or `*.` and a host name, lower-cased. */
export const parseAliasName: ValueParser<string> = (text) => {
  const name = text.toLowerCase();
  const base = name.startsWith('*.') ? name.slice(2) : name;
  return DNS_NAME.test(base) ? { ok: true, value: name } : { ok: false, expected: 'a DNS name or a wildcard such as *.example.com' };
};

const parseAliases: ValueParser<string[]> = (text) => {
  const parsed = listParser(',', parseAliasName, 'DNS names or wildcards such as *.example.com')(text);
  return parsed.ok ? { ok: true, value: [...new Set(parsed.value)].sort() } : parsed;
};

const serverAlias: AnnotationDefinition<string[]> = { name: 'server-alias', risk: 'High', parse: parseAliases };

export const serverAliasAnnotations: AnnotationGroup<string[] | undefined> = {
  annotations: [serverAlias],
  resolve: (values) => {
    const aliases = values.get(serverAlias);
    return aliases === undefined || aliases.length === 0 ? undefined : aliases;
  },
};
