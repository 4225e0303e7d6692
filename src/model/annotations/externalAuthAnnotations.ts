// External authentication, as ingress-nginx's authreq and authreqglobal
// groups: auth-url and what tunes it, or the ConfigMap's global-auth-* keys
// for an Ingress without auth-url (unless enable-global-auth: "false").
// Values are checked here with ingress-nginx's character sets, tightened
// where nginx would otherwise read syntax (URLs in externalAuthUrl.ts).
import { parseObjectReference, type ObjectReference } from '../objectReference.js';
import type { GlobalSettings } from '../settings/globalSettings.js';
import {
  integerParser,
  listParser,
  optionParser,
  parseBoolean,
  parseNginxTime,
  patternParser,
  type ParsedValue,
  type ValueParser,
} from '../settings/valueSyntax.js';
import type { AuthCacheDuration, AuthUrl, ExternalAuth, LocationAnnotations } from '../types.js';
import { issuesIfSet, type AnnotationDefinition, type AnnotationGroup, type AnnotationIssue } from './annotationDefinition.js';
import { parseAuthUrl, parseSigninUrl } from './externalAuthUrl.js';
import { SNIPPET_RISK, snippetRefusal } from './snippetAnnotations.js';

export const AUTH_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE'] as const;

/** ingress-nginx's DefaultCacheDuration, when auth-cache-duration is not set. */
const DEFAULT_CACHE_DURATION: AuthCacheDuration = { codes: [200, 202, 401], time: '5m' };

/** ingress-nginx's defaultGlobalAuthRedirectParam. */
export const DEFAULT_REDIRECT_PARAM = 'rd';

/** ingress-nginx's headerRegexp: names that are also the suffix of `$upstream_http_<name>`. */
export const parseAuthHeaderName = patternParser(/^[A-Za-z0-9_-]{1,256}$/, 'a header name of letters, digits, "-" and "_"');

export const parseAuthResponseHeaders = listParser(',', parseAuthHeaderName, 'header names');

export const parseAuthMethod = optionParser(AUTH_METHODS);

/** A query parameter name. */
export const parseRedirectParam = patternParser(/^[A-Za-z0-9._~-]{1,64}$/, 'a query parameter name of letters, digits and "._~-"');

/** ingress-nginx's URLIsValidRegex, without variables: the X-Auth-Request-Redirect header's value. */
export const parseRequestRedirect = patternParser(/^[A-Za-z0-9\-._~/:,?&=]{1,2048}$/, 'a URL or path of letters, digits and "-._~/:,?&="');

/** ingress-nginx's NGINXVariable: letters, digits, "-", "_" and variable references (`$name`, `${name}`). */
export const parseCacheKey = patternParser(
  /^(?:[A-Za-z0-9_-]|\$[A-Za-z0-9_]+|\$\{[A-Za-z0-9_]+\})+$/,
  'letters, digits, "-", "_" and nginx variables ($name or ${name})',
);

/** One `proxy_cache_valid`: status codes, then one time (`200 202 401 5m`). */
function parseCacheDuration(text: string): ParsedValue<AuthCacheDuration> {
  const words = text.split(' ').filter((word) => word !== '');
  // With a unit, as ingress-nginx's durationRegex: a bare `200` is a status code without its time, not 200 s.
  const last = words.at(-1) ?? '';
  const time = /[a-z]$/.test(last) ? parseNginxTime(last) : parseNginxTime('');
  const codes = words.slice(0, -1);
  if (!time.ok || !codes.every((code) => /^[1-5][0-9]{2}$/.test(code))) {
    return { ok: false, expected: 'status codes then one nginx time, such as 200 202 401 5m' };
  }
  return { ok: true, value: { codes: codes.map(Number), time: time.value } };
}

export const parseCacheDurations = listParser(',', parseCacheDuration, 'cache durations');

/** The snippet is one line; nginx alone can tell whether its directives are valid (a refusal names the Ingress). */
const parseSnippet: ValueParser<string> = (text) => ({ ok: true, value: text });

const authUrl: AnnotationDefinition<AuthUrl> = { name: 'auth-url', risk: 'High', parse: parseAuthUrl };
const authMethod: AnnotationDefinition<string> = { name: 'auth-method', risk: 'Low', parse: parseAuthMethod };
const authSignin: AnnotationDefinition<string> = { name: 'auth-signin', risk: 'High', parse: parseSigninUrl };
const authSigninRedirectParam: AnnotationDefinition<string> = {
  name: 'auth-signin-redirect-param',
  risk: 'Medium',
  parse: parseRedirectParam,
};
const authResponseHeaders: AnnotationDefinition<string[]> = {
  name: 'auth-response-headers',
  risk: 'Medium',
  parse: parseAuthResponseHeaders,
};
const authProxySetHeaders: AnnotationDefinition<ObjectReference> = {
  name: 'auth-proxy-set-headers',
  risk: 'Medium',
  parse: parseObjectReference,
};
const authRequestRedirect: AnnotationDefinition<string> = { name: 'auth-request-redirect', risk: 'Medium', parse: parseRequestRedirect };
const authCacheKey: AnnotationDefinition<string> = { name: 'auth-cache-key', risk: 'Medium', parse: parseCacheKey };
const authCacheDuration: AnnotationDefinition<AuthCacheDuration[]> = {
  name: 'auth-cache-duration',
  risk: 'Medium',
  parse: parseCacheDurations,
};
const authAlwaysSetCookie: AnnotationDefinition<boolean> = { name: 'auth-always-set-cookie', risk: 'Low', parse: parseBoolean };
const authSnippet: AnnotationDefinition<string> = { name: 'auth-snippet', risk: SNIPPET_RISK, parse: parseSnippet };
const enableGlobalAuth: AnnotationDefinition<boolean> = { name: 'enable-global-auth', risk: 'Low', parse: parseBoolean };

// ingress-nginx keeps auth connections alive through Lua subrequests (nginx's
// auth_request does not reuse upstream connections, nginx ticket 1579);
// Portico validates these but does not implement them: a performance setting, ignoring it fails nothing open.
const authKeepalive: AnnotationDefinition<number> = { name: 'auth-keepalive', risk: 'Low', parse: integerParser(0, 2 ** 31 - 1) };
const authKeepaliveRequests: AnnotationDefinition<number> = {
  name: 'auth-keepalive-requests',
  risk: 'Low',
  parse: integerParser(0, 2 ** 31 - 1),
};
const authKeepaliveTimeout: AnnotationDefinition<number> = {
  name: 'auth-keepalive-timeout',
  risk: 'Low',
  parse: integerParser(0, 2 ** 31 - 1),
};
const authKeepaliveShareVars: AnnotationDefinition<boolean> = { name: 'auth-keepalive-share-vars', risk: 'Low', parse: parseBoolean };
const KEEPALIVE = [authKeepalive, authKeepaliveRequests, authKeepaliveTimeout, authKeepaliveShareVars];

/** Everything but auth-url and enable-global-auth: without auth-url, ingress-nginx ignores them. */
const TUNING = [
  authMethod,
  authSignin,
  authSigninRedirectParam,
  authResponseHeaders,
  authProxySetHeaders,
  authRequestRedirect,
  authCacheKey,
  authCacheDuration,
  authAlwaysSetCookie,
  authSnippet,
];

export const externalAuthAnnotations: AnnotationGroup<LocationAnnotations['externalAuth']> = {
  annotations: [authUrl, enableGlobalAuth, ...TUNING, ...KEEPALIVE],
  issues: (values) => {
    const issues: AnnotationIssue[] = issuesIfSet(
      values,
      KEEPALIVE,
      'ignored',
      'not implemented: Portico opens a connection per auth subrequest (ingress-nginx needs Lua subrequests for keep-alive); ignored',
    );
    if (values.get(authUrl) === undefined) issues.push(...issuesIfSet(values, TUNING, 'ignored', 'no effect without auth-url; ignored'));
    return issues;
  },
  resolve: (values, settings) => {
    const url = values.get(authUrl);
    if (url !== undefined) {
      const proxySetHeadersFrom = values.get(authProxySetHeaders);
      return {
        url,
        method: values.get(authMethod),
        signin: values.get(authSignin),
        signinRedirectParam: values.get(authSigninRedirectParam) ?? DEFAULT_REDIRECT_PARAM,
        responseHeaders: values.get(authResponseHeaders) ?? [],
        requestRedirect: values.get(authRequestRedirect),
        cacheKey: values.get(authCacheKey),
        cacheDurations: nonEmpty(values.get(authCacheDuration)),
        alwaysSetCookie: values.get(authAlwaysSetCookie) ?? false,
        proxySetHeadersFrom: proxySetHeadersFrom && { namespace: proxySetHeadersFrom.namespace, name: proxySetHeadersFrom.name },
        proxySetHeaders: [],
        denied: undefined,
        snippet: values.get(authSnippet),
        global: false,
      };
    }
    return values.get(enableGlobalAuth) === false ? undefined : globalExternalAuth(settings);
  },
};

/** The ConfigMap's global-auth-* keys, when global-auth-url is set. */
export function globalExternalAuth(settings: GlobalSettings): ExternalAuth | undefined {
  if (settings.globalAuthUrl === undefined) return undefined;
  return {
    url: settings.globalAuthUrl,
    method: settings.globalAuthMethod,
    signin: settings.globalAuthSignin,
    signinRedirectParam: settings.globalAuthSigninRedirectParam,
    responseHeaders: settings.globalAuthResponseHeaders,
    requestRedirect: settings.globalAuthRequestRedirect,
    cacheKey: settings.globalAuthCacheKey,
    cacheDurations: nonEmpty(settings.globalAuthCacheDuration),
    alwaysSetCookie: settings.globalAuthAlwaysSetCookie,
    proxySetHeadersFrom: undefined,
    proxySetHeaders: [],
    denied: undefined,
    // A snippet, so only when the ConfigMap admits snippets.
    snippet: snippetRefusal(settings) === undefined ? settings.globalAuthSnippet : undefined,
    global: true,
  };
}

function nonEmpty(durations: AuthCacheDuration[] | undefined): AuthCacheDuration[] {
  return durations !== undefined && durations.length > 0 ? durations : [DEFAULT_CACHE_DURATION];
}
