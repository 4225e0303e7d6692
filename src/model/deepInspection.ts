// `--deep-inspect` (on by default): ingress-nginx's inspector refuses an Ingress
// whose hosts, paths or TLS Secret names contain what looks like an nginx
// directive or a sensitive file, a defence against its template injections.
// Portico's builder quotes every such string (nginx.conf cannot be broken out
// of), and the API server's name rules already refuse most of these in hosts
// and Secret names; the patterns are reproduced anyway, because ingress-nginx
// does not serve such an Ingress and a path like /etc/nginx would otherwise
// behave differently after the switch. `--deep-inspect=false` serves them.
import type { Ingress } from '../kube/objects.js';

/** ingress-nginx's inspector/rules.go patterns (Go RE2, case-sensitive; its `(?s)` ones span lines). */
const DANGEROUS_PATTERNS: readonly RegExp[] = [
  /alias[\s\S]*;/,
  /root[\s\S]*;/,
  /\/etc\/(passwd|shadow|group|nginx|ingress-controller)/,
  /\/var\/run\/secrets/,
  /_by_lua/,
];

/** Whether `value` matches one of the patterns. */
export function looksDangerous(value: string): boolean {
  return DANGEROUS_PATTERNS.some((pattern) => pattern.test(value));
}

/** One message per field the inspector refuses; empty when the Ingress passes. */
export function deepInspectionErrors(ingress: Ingress): string[] {
  const errors: string[] = [];
  const check = (field: string, value: string | undefined) => {
    if (value && looksDangerous(value)) {
      errors.push(
        `${field} ${JSON.stringify(value.slice(0, 64))} contains a pattern ingress-nginx's deep inspection refuses (--deep-inspect)`,
      );
    }
  };
  for (const rule of ingress.spec?.rules ?? []) {
    check('host', rule.host);
    for (const path of rule.http?.paths ?? []) check(`path${rule.host ? ` of host ${rule.host}` : ''}`, path.path);
  }
  for (const tls of ingress.spec?.tls ?? []) {
    check('tls secretName', tls.secretName);
    for (const host of tls.hosts ?? []) check('tls host', host);
  }
  return errors;
}
