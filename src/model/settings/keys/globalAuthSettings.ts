// global-auth-*: external authentication of every location, with the same
// syntax as the auth-* annotations (externalAuthAnnotations.ts), plus the
// paths that are never authenticated.
import {
  parseAuthMethod,
  parseAuthResponseHeaders,
  parseCacheDurations,
  parseCacheKey,
  parseRedirectParam,
  parseRequestRedirect,
} from '../../annotations/externalAuthAnnotations.js';
import { parseAuthUrl, parseSigninUrl } from '../../annotations/externalAuthUrl.js';
import type { AuthCacheDuration, AuthUrl } from '../../types.js';
import type { SpecTable } from '../settingSpec.js';
import { listParser, parseAnyText, parseBoolean, parseUrlPath } from '../valueSyntax.js';

export interface GlobalAuthSettings {
  /** global-auth-url: undefined turns global auth off */
  globalAuthUrl: AuthUrl | undefined;
  /** global-auth-method */
  globalAuthMethod: string | undefined;
  /** global-auth-signin */
  globalAuthSignin: string | undefined;
  /** global-auth-signin-redirect-param */
  globalAuthSigninRedirectParam: string;
  /** global-auth-response-headers */
  globalAuthResponseHeaders: string[];
  /** global-auth-request-redirect */
  globalAuthRequestRedirect: string | undefined;
  /** global-auth-snippet (only with snippets admitted) */
  globalAuthSnippet: string | undefined;
  /** global-auth-cache-key */
  globalAuthCacheKey: string | undefined;
  /** global-auth-cache-duration */
  globalAuthCacheDuration: AuthCacheDuration[];
  /** global-auth-always-set-cookie */
  globalAuthAlwaysSetCookie: boolean;
  /** no-auth-locations: path prefixes never authenticated (neither global nor per-Ingress auth) */
  noAuthLocations: string[];
}

export const GLOBAL_AUTH_DEFAULTS: GlobalAuthSettings = {
  globalAuthUrl: undefined,
  globalAuthMethod: undefined,
  globalAuthSignin: undefined,
  globalAuthSigninRedirectParam: 'rd',
  globalAuthResponseHeaders: [],
  globalAuthRequestRedirect: undefined,
  globalAuthSnippet: undefined,
  globalAuthCacheKey: undefined,
  globalAuthCacheDuration: [{ codes: [200, 202, 401], time: '5m' }],
  globalAuthAlwaysSetCookie: false,
  noAuthLocations: ['/.well-known/acme-challenge'],
};

export const GLOBAL_AUTH_SPECS: SpecTable<GlobalAuthSettings> = {
  globalAuthUrl: { key: 'global-auth-url', parse: parseAuthUrl },
  globalAuthMethod: { key: 'global-auth-method', parse: parseAuthMethod },
  globalAuthSignin: { key: 'global-auth-signin', parse: parseSigninUrl },
  globalAuthSigninRedirectParam: { key: 'global-auth-signin-redirect-param', parse: parseRedirectParam },
  globalAuthResponseHeaders: { key: 'global-auth-response-headers', parse: parseAuthResponseHeaders },
  globalAuthRequestRedirect: { key: 'global-auth-request-redirect', parse: parseRequestRedirect },
  // A snippet: stored as one line; externalAuthAnnotations.ts uses it only when the ConfigMap admits snippets.
  globalAuthSnippet: { key: 'global-auth-snippet', parse: parseAnyText },
  globalAuthCacheKey: { key: 'global-auth-cache-key', parse: parseCacheKey },
  globalAuthCacheDuration: { key: 'global-auth-cache-duration', parse: parseCacheDurations },
  globalAuthAlwaysSetCookie: { key: 'global-auth-always-set-cookie', parse: parseBoolean },
  noAuthLocations: { key: 'no-auth-locations', parse: listParser(',', parseUrlPath, 'paths') },
};
