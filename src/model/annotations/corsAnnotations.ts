// enable-cors and the cors-* annotations: Cross-Origin Resource Sharing
// answered by nginx, as ingress-nginx's "cors" group. Values are checked with
// ingress-nginx's patterns (its regexes rewritten so that none backtracks), so
// what is rendered is letters, digits and a few separators only.
// renderCors.ts renders it.
import { integerParser, parseBoolean, quoteValue, type ValueParser } from '../settings/valueSyntax.js';
import { issuesIfSet, type AnnotationDefinition, type AnnotationGroup, type AnnotationIssue } from './annotationDefinition.js';

/** What a location with `enable-cors: "true"` answers with. */
export interface Cors {
  /**
   * `*` (any origin: `Access-Control-Allow-Origin: *`), or the origins whose
   * requests get their Origin echoed: `scheme://host[:port]`, `null`, or
   * `scheme://*.domain[:port]` (exactly one label in place of the `*`).
   */
  allowOrigins: '*' | string[];
  allowMethods: string;
  allowHeaders: string;
  /** `''`: no Access-Control-Expose-Headers. */
  exposeHeaders: string;
  allowCredentials: boolean;
  /** Seconds. */
  maxAge: number;
}

// ingress-nginx's defaults.
const DEFAULT_METHODS = 'GET, PUT, POST, DELETE, PATCH, OPTIONS';
const DEFAULT_HEADERS = 'DNT,Keep-Alive,User-Agent,X-Requested-With,If-Modified-Since,Cache-Control,Content-Type,Range,Authorization';
const DEFAULT_MAX_AGE = 1728000;

/** An origin ingress-nginx applies: a lower-case scheme, an optional `*.`, host characters, an optional port. */
const ORIGIN = /^[a-z]+:\/\/(?:\*\.)?[A-Za-z0-9.-]*(?::[0-9]+)?$/;
/** What ingress-nginx's whole-value check lets through but then skips (logging it): the same without a scheme. */
const SCHEMELESS_ORIGIN = /^(?:\*\.)?[A-Za-z0-9.-]*(?::[0-9]+)?$/;

/** Bounds what reaches nginx.conf: an origin list's regex stays well within an nginx argument. */
const MAX_LIST_LENGTH = 1000;

/** The parsed list, and the entries ingress-nginx would skip (reported as ignored). */
export interface OriginList {
  origins: '*' | string[];
  skipped: string[];
}

/** Comma-separated, entries trimmed, empty ones dropped; a `*` anywhere means any origin, as in ingress-nginx. */
export const parseOrigins: ValueParser<OriginList> = (value) => {
  if (value.length > MAX_LIST_LENGTH) return { ok: false, expected: `at most ${MAX_LIST_LENGTH} characters of origins` };
  const origins: string[] = [];
  const skipped: string[] = [];
  let any = false;
  for (const part of value.split(',')) {
    const entry = part.trim();
    if (entry === '') continue;
    if (entry === '*') any = true;
    else if (entry === 'null' || ORIGIN.test(entry)) origins.push(entry);
    else if (SCHEMELESS_ORIGIN.test(entry)) skipped.push(entry);
    else {
      return {
        ok: false,
        expected: `a comma-separated list of "*", "null" or origins such as https://example.com:8443 or https://*.example.com; ${quoteValue(entry)} is none`,
      };
    }
  }
  return { ok: true, value: { origins: any ? '*' : [...new Set(origins)], skipped: any ? [] : skipped } };
};

/** `^([A-Za-z]+,?\s?)+$`: letters, words separated by ",", " " or ", ". */
const METHODS = /^[A-Za-z]+(?:(?:, ?| )[A-Za-z]+)*(?:, ?| )?$/;
/** `^(([A-Za-z0-9\-\_]+|\*),?\s?)+$`: the same with digits, "-", "_" and "*". */
const EXPOSE_HEADERS = /^[A-Za-z0-9_*-]+(?:(?:, ?| )[A-Za-z0-9_*-]+)*(?:, ?| )?$/;
/** ingress-nginx's HeadersVariable. */
const ALLOW_HEADERS = /^[A-Za-z0-9_, -]*$/;

function listParser(pattern: RegExp, expected: string): ValueParser<string> {
  return (value) => (value.length <= MAX_LIST_LENGTH && pattern.test(value) ? { ok: true, value } : { ok: false, expected });
}

export const enableCors: AnnotationDefinition<boolean> = { name: 'enable-cors', risk: 'Low', parse: parseBoolean };

const allowOrigin: AnnotationDefinition<OriginList> = { name: 'cors-allow-origin', risk: 'Medium', parse: parseOrigins };

const allowMethods: AnnotationDefinition<string> = {
  name: 'cors-allow-methods',
  risk: 'Medium',
  parse: listParser(METHODS, 'a comma-separated list of HTTP methods (letters only)'),
};

const allowHeaders: AnnotationDefinition<string> = {
  name: 'cors-allow-headers',
  risk: 'Medium',
  parse: listParser(ALLOW_HEADERS, 'a comma-separated list of header names (letters, digits, "-" and "_")'),
};

const exposeHeaders: AnnotationDefinition<string> = {
  name: 'cors-expose-headers',
  risk: 'Medium',
  parse: listParser(EXPOSE_HEADERS, 'a comma-separated list of header names (letters, digits, "-" and "_") or "*"'),
};

const allowCredentials: AnnotationDefinition<boolean> = { name: 'cors-allow-credentials', risk: 'Low', parse: parseBoolean };

const maxAge: AnnotationDefinition<number> = { name: 'cors-max-age', risk: 'Low', parse: integerParser(0, 2 ** 31 - 1, ' of seconds') };

const CORS_SETTINGS = [allowOrigin, allowMethods, allowHeaders, exposeHeaders, allowCredentials, maxAge];

export const corsAnnotations: AnnotationGroup<Cors | undefined> = {
  annotations: [enableCors, ...CORS_SETTINGS],
  issues: (values) => {
    if (values.get(enableCors) !== true) {
      return issuesIfSet(values, CORS_SETTINGS, 'ignored', 'ignored: it has no effect without enable-cors: "true"');
    }
    const skipped = values.get(allowOrigin)?.skipped ?? [];
    return skipped.map((entry): AnnotationIssue => ({
      annotation: allowOrigin,
      verdict: 'ignored',
      reason: `origin ${quoteValue(entry)} ignored: an origin needs a scheme, such as https://${entry}`,
    }));
  },
  resolve: (values) => {
    if (values.get(enableCors) !== true) return undefined;
    return {
      allowOrigins: values.get(allowOrigin)?.origins ?? '*',
      allowMethods: values.get(allowMethods) ?? DEFAULT_METHODS,
      allowHeaders: values.get(allowHeaders) ?? DEFAULT_HEADERS,
      exposeHeaders: values.get(exposeHeaders) ?? '',
      allowCredentials: values.get(allowCredentials) ?? true,
      maxAge: values.get(maxAge) ?? DEFAULT_MAX_AGE,
    };
  },
};
