// allowlist-source-range (alias whitelist-source-range) and denylist-source-range:
// client address filters, as ingress-nginx's "acl" groups.
import { isIP } from 'node:net';
import { quoteValue, type ParsedValue } from '../settings/valueSyntax.js';
import type { LocationAnnotations } from '../types.js';
import type { AnnotationDefinition, AnnotationGroup } from './annotationDefinition.js';

/** Hex digits, dots and colons only: rules out IPv6 zone ids (`%eth0`), which isIP admits and nginx does not. */
const ADDRESS_OR_CIDR = /^([0-9A-Fa-f.:]+)(?:\/(0|[1-9][0-9]{0,2}))?$/;

const EXPECTED = 'a comma-separated list of IPv4/IPv6 addresses or CIDRs such as 10.0.0.0/8, 2001:db8::/32';

function isAddressOrCidr(text: string): boolean {
  const match = ADDRESS_OR_CIDR.exec(text);
  const address = match?.[1];
  if (address === undefined) return false;
  const family = isIP(address);
  if (family === 0) return false;
  const prefix = match?.[2];
  return prefix === undefined || Number(prefix) <= (family === 4 ? 32 : 128);
}

/**
 * As ingress-nginx: every comma-separated entry must be valid (an empty entry
 * is not); the result is sorted and without duplicates.
 */
export function parseSourceRange(text: string): ParsedValue<string[]> {
  const entries = text.split(',').map((entry) => entry.trim());
  const invalid = entries.find((entry) => !isAddressOrCidr(entry));
  if (invalid !== undefined) return { ok: false, expected: `${EXPECTED} (${quoteValue(invalid)} is not one)` };
  return { ok: true, value: [...new Set(entries)].sort() };
}

const allowlistSourceRange: AnnotationDefinition<string[]> = {
  name: 'allowlist-source-range',
  aliases: ['whitelist-source-range'],
  // Medium as in ingress-nginx: a wrong list silently changes who gets in.
  risk: 'Medium',
  parse: parseSourceRange,
};

const denylistSourceRange: AnnotationDefinition<string[]> = {
  name: 'denylist-source-range',
  risk: 'Medium',
  parse: parseSourceRange,
};

export const ipAccessAnnotations: AnnotationGroup<LocationAnnotations['ipAccess']> = {
  annotations: [allowlistSourceRange, denylistSourceRange],
  // Unset, the ConfigMap's whitelist-source-range and denylist-source-range apply (globalAccessSettings.ts), as in ingress-nginx.
  resolve: (values, settings) => ({
    allow: values.get(allowlistSourceRange) ?? settings.whitelistSourceRange,
    deny: values.get(denylistSourceRange) ?? settings.denylistSourceRange,
  }),
};
