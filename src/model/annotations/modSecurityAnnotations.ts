// enable-modsecurity, enable-owasp-core-rules, modsecurity-transaction-id and
// modsecurity-snippet: ingress-nginx's "modsecurity" group. What they render
// (and how they combine with the ConfigMap's enable-modsecurity and
// enable-owasp-modsecurity-crs) is src/dataplane/nginx/render/renderModSecurity.ts.
import { isKnownLogVariable } from '../settings/logFormatVariables.js';
import { parseBoolean, quoteValue, type ParsedValue } from '../settings/valueSyntax.js';
import type { LocationAnnotations, ModSecurityAnnotations } from '../types.js';
import type { AnnotationDefinition, AnnotationGroup } from './annotationDefinition.js';
import { SNIPPET_RISK } from './snippetAnnotations.js';

const enableModSecurity: AnnotationDefinition<boolean> = { name: 'enable-modsecurity', risk: 'Low', parse: parseBoolean };

const enableOwaspCoreRules: AnnotationDefinition<boolean> = { name: 'enable-owasp-core-rules', risk: 'Low', parse: parseBoolean };

const MAX_TRANSACTION_ID_LENGTH = 256;

/** ingress-nginx's parser.NGINXVariable: letters, digits, "-", "_", and "$", "{", "}" for variable references. */
const TRANSACTION_ID_SYNTAX = /^(?:[A-Za-z0-9_-]|\$[A-Za-z0-9_]+|\$\{[A-Za-z0-9_]+\})+$/;

/** nginx reads a variable name greedily: `$request_id-x` is `$request_id` then `-x`. */
const VARIABLE_NAME = /\$(?:([A-Za-z0-9_]+)|\{([A-Za-z0-9_]+)\})/g;

/**
 * modsecurity_transaction_id is an nginx complex value: High risk (it reads any
 * variable), and a reference that is malformed or names a variable nginx.conf
 * does not define would make nginx refuse the whole configuration, so both are
 * refused here, on the Ingress.
 */
export function parseTransactionId(text: string): ParsedValue<string> {
  const expected = `at most ${MAX_TRANSACTION_ID_LENGTH} letters, digits, "-" and "_", and nginx variables $name or \${name}`;
  if (text.length > MAX_TRANSACTION_ID_LENGTH || !TRANSACTION_ID_SYNTAX.test(text)) return { ok: false, expected };
  for (const [, bare, braced] of text.matchAll(VARIABLE_NAME)) {
    const name = bare ?? braced ?? '';
    if (!isKnownLogVariable(name)) {
      return { ok: false, expected: `${expected}, naming only variables nginx.conf has; ${quoteValue(`$${name}`)} is not one` };
    }
  }
  return { ok: true, value: text };
}

const modSecurityTransactionId: AnnotationDefinition<string> = {
  name: 'modsecurity-transaction-id',
  risk: 'High',
  parse: parseTransactionId,
};

/**
 * ModSecurity rules for the location (`modsecurity_rules`), as ingress-nginx: a
 * snippet, admitted only with the ConfigMap's snippet switch and risk level
 * Critical, since a rule can read files or run programs (`@inspectFile`). It
 * reaches nginx.conf as one quoted argument, so it can only be ModSecurity
 * configuration, never nginx's; the value checks every annotation gets make it
 * one line. libmodsecurity alone can tell whether it is valid: a refusal at
 * reload is traced back to this Ingress.
 */
const modSecuritySnippet: AnnotationDefinition<string> = {
  name: 'modsecurity-snippet',
  risk: SNIPPET_RISK,
  parse: (text) => ({ ok: true, value: text }),
};

export const modSecurityAnnotations: AnnotationGroup<LocationAnnotations['modSecurity']> = {
  annotations: [enableModSecurity, enableOwaspCoreRules, modSecurityTransactionId, modSecuritySnippet],
  resolve: (values) => {
    const enable = values.get(enableModSecurity);
    const owaspCoreRules = values.get(enableOwaspCoreRules);
    const transactionId = values.get(modSecurityTransactionId);
    const snippet = values.get(modSecuritySnippet);
    if (enable === undefined && owaspCoreRules === undefined && transactionId === undefined && snippet === undefined) return undefined;
    return {
      enable,
      owaspCoreRules: owaspCoreRules ?? false,
      ...(transactionId === undefined ? {} : { transactionId }),
      ...(snippet === undefined ? {} : { snippet }),
    };
  },
};

/** What the machine has of ModSecurity (probed by the data plane: src/dataplane/nginx/modSecurityFiles.ts). */
export interface ModSecurityInstallation {
  /** nginx's ngx_http_modsecurity_module.so (Debian's libnginx-mod-http-modsecurity). */
  module: boolean;
  /** The OWASP Core Rule Set (Debian's modsecurity-crs). */
  coreRuleSet: boolean;
}

/**
 * Why an Ingress asking for ModSecurity cannot be served as it asks on this
 * machine: serving it without the firewall would fail open, and nginx would
 * refuse the load_module or rules file anyway.
 */
export function modSecurityUnavailable(modSecurity: ModSecurityAnnotations | undefined, installation: ModSecurityInstallation): string[] {
  if (modSecurity?.enable !== true) return [];
  if (!installation.module) {
    return ['enable-modsecurity: the ModSecurity nginx module is not installed (Debian package libnginx-mod-http-modsecurity)'];
  }
  if (modSecurity.owaspCoreRules && !installation.coreRuleSet) {
    return ['enable-owasp-core-rules: the OWASP Core Rule Set is not installed (Debian package modsecurity-crs)'];
  }
  return [];
}
