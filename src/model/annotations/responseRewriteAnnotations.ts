// Rewrites of the backend's response headers by nginx's proxy module, as
// ingress-nginx's proxy group and template: proxy-cookie-domain and
// proxy-cookie-path rewrite the Domain and Path attributes of Set-Cookie,
// proxy-redirect-from and proxy-redirect-to the Location (and Refresh) header.
// Each value is ingress-nginx's character set (no `$`, so nothing is an nginx
// variable), cut into the words nginx takes; a `from` starting with `~` is a
// regex to nginx, so it must be one PCRE compiles as JavaScript does.
import { analyzePortableRegex } from '../settings/portableRegex.js';
import type { ParsedValue, ValueParser } from '../settings/valueSyntax.js';
import { issuesIfSet, type AnnotationDefinition, type AnnotationGroup } from './annotationDefinition.js';

/** `off`, or one rewrite of `from` (a leading `~`: a case-sensitive regex) to `to`. */
export type HeaderRewrite = 'off' | { from: string; to: string };

/** Set only when one of the annotations is; an undefined field renders nothing (nginx's default). */
export interface ResponseRewrites {
  /** `proxy-cookie-domain`: proxy_cookie_domain. */
  cookieDomain: HeaderRewrite | undefined;
  /** `proxy-cookie-path`: proxy_cookie_path. */
  cookiePath: HeaderRewrite | undefined;
  /** `proxy-redirect-from` and `proxy-redirect-to`: proxy_redirect (`default` derives the rewrite from proxy_pass). */
  redirect: 'default' | HeaderRewrite | undefined;
}

/** ingress-nginx's cookieDomainChars. */
const DOMAIN_WORD = /^[A-Za-z0-9._~/:-]{1,512}$/;
/** ingress-nginx's URLIsValidRegex characters (paths and URLs with a query). */
const URL_WORD = /^[A-Za-z0-9._~/:,?&=-]{1,1024}$/;
const MAX_REGEX_LENGTH = 256;

/** A `from` word: with a leading `~`, nginx compiles the rest as a regex, which must compile. */
function fromWord(word: string): string | undefined {
  if (!word.startsWith('~')) return undefined;
  const analysis = analyzePortableRegex(word.slice(1), MAX_REGEX_LENGTH);
  return analysis.ok ? undefined : `the regex after "~" is refused: ${analysis.problem}`;
}

function wordsParser(word: RegExp, characters: string): ValueParser<HeaderRewrite> {
  const expected = `"off" or two words (from, to) of ${characters}`;
  return (text): ParsedValue<HeaderRewrite> => {
    if (text === 'off') return { ok: true, value: 'off' };
    const words = text.split(' ').filter((part) => part !== '');
    const [from, to] = words;
    if (words.length !== 2 || from === undefined || to === undefined || !word.test(from) || !word.test(to)) return { ok: false, expected };
    const problem = fromWord(from);
    return problem === undefined ? { ok: true, value: { from, to } } : { ok: false, expected: `${expected}; ${problem}` };
  };
}

export const parseCookieDomain = wordsParser(DOMAIN_WORD, 'letters, digits and "._~/:-"');
export const parseCookiePath = wordsParser(URL_WORD, 'letters, digits and "._~/:,?&=-"');

/** One word of the URL characters; for proxy-redirect-from, a leading `~` regex must compile. */
function redirectWord(from: boolean): ValueParser<string> {
  return (text) => {
    if (!URL_WORD.test(text)) return { ok: false, expected: 'one word of letters, digits and "._~/:,?&=-"' };
    const problem = from ? fromWord(text) : undefined;
    return problem === undefined ? { ok: true, value: text } : { ok: false, expected: `a URL or a compiling "~" regex; ${problem}` };
  };
}

export const parseRedirectFrom = redirectWord(true);
export const parseRedirectTo = redirectWord(false);

const proxyCookieDomain: AnnotationDefinition<HeaderRewrite> = { name: 'proxy-cookie-domain', risk: 'Medium', parse: parseCookieDomain };
const proxyCookiePath: AnnotationDefinition<HeaderRewrite> = { name: 'proxy-cookie-path', risk: 'Medium', parse: parseCookiePath };
const proxyRedirectFrom: AnnotationDefinition<string> = { name: 'proxy-redirect-from', risk: 'Medium', parse: parseRedirectFrom };
const proxyRedirectTo: AnnotationDefinition<string> = { name: 'proxy-redirect-to', risk: 'Medium', parse: parseRedirectTo };

/** `default` and `off` stand alone in proxy_redirect; ingress-nginx's template ignores the `to` then. */
const isKeyword = (from: string | undefined): from is 'default' | 'off' => from === 'default' || from === 'off';

/**
 * ingress-nginx's template: `from` default or off alone; otherwise `from to`
 * unless `to` is off (or unset, which defaults to off). An unset `from` is its
 * default, off; when neither is set nothing is rendered (nginx's own default).
 */
function resolveRedirect(from: string | undefined, to: string | undefined): ResponseRewrites['redirect'] {
  if (from === undefined) return to === undefined ? undefined : 'off';
  if (isKeyword(from)) return from;
  return to === undefined || to === 'off' ? undefined : { from, to };
}

export const responseRewriteAnnotations: AnnotationGroup<ResponseRewrites | undefined> = {
  annotations: [proxyCookieDomain, proxyCookiePath, proxyRedirectFrom, proxyRedirectTo],
  // Unset, each annotation takes the ConfigMap key of its name (responseRewriteSettings.ts; undefined there is "off").
  issues: (values, settings) => {
    const from = values.get(proxyRedirectFrom) ?? settings.proxyRedirectFrom;
    const to = values.get(proxyRedirectTo) ?? settings.proxyRedirectTo;
    if (from === undefined) {
      return issuesIfSet(values, [proxyRedirectTo], 'ignored', 'unused without proxy-redirect-from, whose default "off" applies; ignored');
    }
    if (isKeyword(from)) return issuesIfSet(values, [proxyRedirectTo], 'ignored', `unused with proxy-redirect-from "${from}"; ignored`);
    if (to === undefined || to === 'off') {
      return issuesIfSet(values, [proxyRedirectFrom], 'ignored', 'no effect without a proxy-redirect-to other than off; ignored');
    }
    return [];
  },
  resolve: (values, settings) => {
    const rewrites: ResponseRewrites = {
      cookieDomain: values.get(proxyCookieDomain) ?? settings.proxyCookieDomain,
      cookiePath: values.get(proxyCookiePath) ?? settings.proxyCookiePath,
      redirect: resolveRedirect(
        values.get(proxyRedirectFrom) ?? settings.proxyRedirectFrom,
        values.get(proxyRedirectTo) ?? settings.proxyRedirectTo,
      ),
    };
    return Object.values(rewrites).some((value) => value !== undefined) ? rewrites : undefined;
  },
};
