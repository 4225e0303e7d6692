// External authentication, as ingress-nginx's authreq and authreqglobal
// groups: auth-url and what tunes it, or the ConfigMap's global-auth-* keys
// for an Ingress without auth-url (unless enable-global-auth: "false").
// Values are checked here with ingress-nginx's character sets, tightened
// where nginx would otherwise read syntax (URLs in externalAuthUrl.ts).
import { parseObjectReference, type ObjectReference } from '../objectReference.js';
import type { GlobalSettings } from '../settings/globalSettings.js';
import { MAX_UPSTREAM_KEEPALIVE_CONNECTIONS } from '../settings/nginxLimits.js';
import {
  integerParser,
  listParser,
  optionParser,
  parseBoolean,
  parseNginxTime,
  parseSeconds,
  patternParser,
  type ParsedValue,
  type ValueParser,
} from '../settings/valueSyntax.js';
import type { AuthCacheDuration, AuthKeepalive, AuthUrl, ExternalAuth, LocationAnnotations } from '../types.js';
import {
  issuesIfSet,
  type AnnotationDefinition,
  type AnnotationGroup,
  type AnnotationIssue,
  type AnnotationValues,
} from './annotationDefinition.js';
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

/** Lines of nginx configuration (LINE_BROKEN_SNIPPETS); nginx alone can tell whether its directives are valid (a refusal names the Ingress). */
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

// nginx's auth_request does not reuse upstream connections (nginx ticket
// 1579): with auth-keepalive, as ingress-nginx, the auth location is asked
// through a Lua subrequest instead, over an upstream that keeps connections.
const authKeepalive: AnnotationDefinition<number> = {
  name: 'auth-keepalive',
  risk: 'Low',
  // nginx allocates the idle connection cache of every worker at load time.
  parse: integerParser(0, MAX_UPSTREAM_KEEPALIVE_CONNECTIONS),
};
const authKeepaliveRequests: AnnotationDefinition<number> = {
  name: 'auth-keepalive-requests',
  risk: 'Low',
  parse: integerParser(0, 2 ** 31 - 1),
};
const authKeepaliveTimeout: AnnotationDefinition<number> = { name: 'auth-keepalive-timeout', risk: 'Low', parse: parseSeconds };
const authKeepaliveShareVars: AnnotationDefinition<boolean> = { name: 'auth-keepalive-share-vars', risk: 'Low', parse: parseBoolean };
const KEEPALIVE_TUNING = [authKeepaliveRequests, authKeepaliveTimeout, authKeepaliveShareVars];
const KEEPALIVE = [authKeepalive, ...KEEPALIVE_TUNING];

/** ingress-nginx's defaults when auth-keepalive is set alone. */
const DEFAULT_KEEPALIVE_REQUESTS = 1000;
const DEFAULT_KEEPALIVE_TIMEOUT_SECONDS = 60;

function keepaliveIssues(values: AnnotationValues): AnnotationIssue[] {
  if ((values.get(authKeepalive) ?? 0) === 0) {
    return issuesIfSet(values, KEEPALIVE_TUNING, 'ignored', 'no effect without auth-keepalive; ignored');
  }
  // As ingress-nginx: 0 requests or 0 seconds turn keep-alive off rather than making every connection useless.
  const zero = [authKeepaliveRequests, authKeepaliveTimeout].filter((definition) => values.get(definition) === 0);
  return issuesIfSet(values, zero, 'ignored', '0 turns auth-keepalive off; ignored');
}

/**
 * The keep-alive of an auth-url, or undefined: auth-keepalive 0 or unset,
 * requests or timeout 0, or HTTP/2 on (ingress-nginx's rule: its Lua
 * subrequest is not used for HTTP/2 requests, and the listeners are shared).
 */
function resolveKeepalive(values: AnnotationValues, settings: GlobalSettings): AuthKeepalive | undefined {
  const connections = values.get(authKeepalive) ?? 0;
  const requests = values.get(authKeepaliveRequests) ?? DEFAULT_KEEPALIVE_REQUESTS;
  const timeoutSeconds = values.get(authKeepaliveTimeout) ?? DEFAULT_KEEPALIVE_TIMEOUT_SECONDS;
  if (connections === 0 || requests === 0 || timeoutSeconds === 0 || settings.useHttp2) return undefined;
  return { connections, requests, timeoutSeconds, shareVars: values.get(authKeepaliveShareVars) ?? false };
}

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
    const issues = values.get(authUrl) === undefined ? [] : keepaliveIssues(values);
    if (values.get(authUrl) === undefined)
      issues.push(...issuesIfSet(values, [...TUNING, ...KEEPALIVE], 'ignored', 'no effect without auth-url; ignored'));
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
        keepalive: resolveKeepalive(values, settings),
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
    // As ingress-nginx: the ConfigMap has no keep-alive keys.
    keepalive: undefined,
  };
}

function nonEmpty(durations: AuthCacheDuration[] | undefined): AuthCacheDuration[] {
  return durations !== undefined && durations.length > 0 ? durations : [DEFAULT_CACHE_DURATION];
}
