// Redirects answered by nginx itself, as ingress-nginx v1.15.1 does them:
// app-root (its "rewrite" group), permanent-redirect and temporal-redirect with
// their codes and relative-redirects (its "redirect" group), use-port-in-redirects
// (its "portinredirect" group), and preserve-trailing-slash, which shapes the
// HTTP→HTTPS redirect. from-to-www-redirect is a server alias, not part of this group.
import { isKnownLogVariable } from '../settings/logFormatVariables.js';
import { parseBoolean, parseNonNegativeInteger, quoteValue, type ValueParser } from '../settings/valueSyntax.js';
import type { AnnotationDefinition, AnnotationGroup, AnnotationIssue, AnnotationValues } from './annotationDefinition.js';

/** What a location's redirect annotations ask for; undefined when none changes anything. */
export interface Redirects {
  /** `app-root`: a request for exactly `/` of the host gets a 302 to this path (may name nginx variables nginx.conf has). */
  appRoot?: string;
  /** `temporal-redirect` (it wins) or `permanent-redirect`: every request of the location is answered with this. */
  redirect?: RedirectAnswer;
  /** `relative-redirects`: nginx's redirects keep a relative Location relative (`absolute_redirect off`). */
  relative?: true;
  /** `preserve-trailing-slash`: the HTTPS redirect keeps a trailing `/` of the request URI. */
  preserveTrailingSlash?: true;
  /** `use-port-in-redirects`: the HTTPS redirect names the HTTPS port, nginx's own redirects the request's port. */
  usePortInRedirects?: true;
}

export interface RedirectAnswer {
  /** A status from 300 to 308; for 301, 302, 303, 307 and 308 `url` is the Location, for the others nginx's body text. */
  code: number;
  /** Characters of ingress-nginx's URL validator only: no `$`, quote, space or `;` (validated below). */
  url: string;
}

/** ingress-nginx's URLIsValidRegex: letters, digits and `-._~/:,?&=`, nothing nginx or a header would read as syntax. */
const URL_CHARACTERS = /^[A-Za-z0-9._~/:,?&=-]+$/;
const URL_EXPECTED = 'a URL of letters, digits and "-._~/:,?&="';

const parseRedirectUrl: ValueParser<string> = (text) =>
  URL_CHARACTERS.test(text) ? { ok: true, value: text } : { ok: false, expected: URL_EXPECTED };

/** temporal-redirect must also be an http(s) URL (ingress-nginx checks the scheme of temporal-redirect only). */
const parseAbsoluteRedirectUrl: ValueParser<string> = (text) => {
  const expected = `an http or https URL of letters, digits and "-._~/:,?&="`;
  if (!URL_CHARACTERS.test(text) || !/^https?:/i.test(text)) return { ok: false, expected };
  return URL.canParse(text) ? { ok: true, value: text } : { ok: false, expected };
};

/**
 * ingress-nginx's RegexPathWithCapture, and a path (`url.ParseRequestURI`,
 * not absolute). Its `$` reaches nginx as a variable reference, so each must
 * name a variable nginx.conf has: an unknown one would fail the reload.
 */
const parseAppRoot: ValueParser<string> = (text) => {
  const expected = 'a URL path starting with "/" of letters, digits, "-._~:/" and variable references such as $host';
  if (!/^\/(?:[A-Za-z0-9._~:/-]|\$[A-Za-z0-9_]+|\$\{[A-Za-z0-9_]+\})*$/.test(text)) return { ok: false, expected };
  for (const [, bare, braced] of text.matchAll(/\$(?:([A-Za-z0-9_]+)|\{([A-Za-z0-9_]+)\})/g)) {
    const name = bare ?? braced ?? '';
    if (!isKnownLogVariable(name))
      return { ok: false, expected: `${expected}; ${quoteValue(`$${name}`)} is not a variable nginx.conf has` };
  }
  return { ok: true, value: text };
};

const appRoot: AnnotationDefinition<string> = { name: 'app-root', risk: 'Medium', parse: parseAppRoot };
const permanentRedirect: AnnotationDefinition<string> = { name: 'permanent-redirect', risk: 'Medium', parse: parseRedirectUrl };
const permanentRedirectCode: AnnotationDefinition<number> = {
  name: 'permanent-redirect-code',
  risk: 'Low',
  parse: parseNonNegativeInteger,
};
const temporalRedirect: AnnotationDefinition<string> = { name: 'temporal-redirect', risk: 'Medium', parse: parseAbsoluteRedirectUrl };
const temporalRedirectCode: AnnotationDefinition<number> = { name: 'temporal-redirect-code', risk: 'Low', parse: parseNonNegativeInteger };
const relativeRedirects: AnnotationDefinition<boolean> = { name: 'relative-redirects', risk: 'Low', parse: parseBoolean };
const preserveTrailingSlash: AnnotationDefinition<boolean> = { name: 'preserve-trailing-slash', risk: 'Medium', parse: parseBoolean };
const usePortInRedirects: AnnotationDefinition<boolean> = { name: 'use-port-in-redirects', risk: 'Low', parse: parseBoolean };

interface CodeRule {
  code: AnnotationDefinition<number>;
  /** ingress-nginx's range; a code outside it silently becomes the default. */
  min: number;
  max: number;
  fallback: number;
}

// As ingress-nginx: 300 (StatusMultipleChoices) to 307 for temporal, to 308 for permanent.
const TEMPORAL: CodeRule = { code: temporalRedirectCode, min: 300, max: 307, fallback: 302 };
const PERMANENT: CodeRule = { code: permanentRedirectCode, min: 300, max: 308, fallback: 301 };

function codeOf(values: AnnotationValues, rule: CodeRule): number {
  const code = values.get(rule.code);
  return code !== undefined && code >= rule.min && code <= rule.max ? code : rule.fallback;
}

function redirectOf(values: AnnotationValues): RedirectAnswer | undefined {
  const temporal = values.get(temporalRedirect);
  if (temporal !== undefined) return { code: codeOf(values, TEMPORAL), url: temporal };
  const permanent = values.get(permanentRedirect);
  return permanent === undefined ? undefined : { code: codeOf(values, PERMANENT), url: permanent };
}

/** Values that are valid but change nothing, so the Ingress's Events say so. */
function ignoredValues(values: AnnotationValues): AnnotationIssue[] {
  const issues: AnnotationIssue[] = [];
  const ignored = (annotation: AnnotationDefinition<unknown>, reason: string) => issues.push({ annotation, verdict: 'ignored', reason });
  const temporalSet = values.get(temporalRedirect) !== undefined;
  if (temporalSet && values.get(permanentRedirect) !== undefined) {
    ignored(permanentRedirect, 'ignored: temporal-redirect is also set, and it wins (as in ingress-nginx)');
  }
  for (const [rule, url] of [
    [TEMPORAL, temporalRedirect],
    [PERMANENT, permanentRedirect],
  ] as const) {
    const code = values.get(rule.code);
    if (code === undefined) continue;
    if (values.get(url) === undefined) ignored(rule.code, `ignored: ${url.name} is not set`);
    else if (code < rule.min || code > rule.max) {
      ignored(rule.code, `${code} is outside ${rule.min}-${rule.max}, so the default ${rule.fallback} applies (as in ingress-nginx)`);
    }
  }
  return issues;
}

export const redirectAnnotations: AnnotationGroup<Redirects | undefined> = {
  annotations: [
    appRoot,
    permanentRedirect,
    permanentRedirectCode,
    temporalRedirect,
    temporalRedirectCode,
    relativeRedirects,
    preserveTrailingSlash,
    usePortInRedirects,
  ],
  issues: ignoredValues,
  resolve: (values) => {
    const redirects: Redirects = {};
    const root = values.get(appRoot);
    if (root !== undefined) redirects.appRoot = root;
    const redirect = redirectOf(values);
    if (redirect !== undefined) redirects.redirect = redirect;
    // Only `true` changes anything: false is what a location without the annotation gets.
    if (values.get(relativeRedirects) === true) redirects.relative = true;
    if (values.get(preserveTrailingSlash) === true) redirects.preserveTrailingSlash = true;
    if (values.get(usePortInRedirects) === true) redirects.usePortInRedirects = true;
    return Object.keys(redirects).length === 0 ? undefined : redirects;
  },
};
