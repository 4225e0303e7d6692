// affinity, affinity-mode and the session-cookie-* annotations: a cookie that
// pins a client to one endpoint (ingress-nginx's "affinity" group;
// affinity-canary-behavior only acts on canaries, so it lives in
// canaryAnnotations.ts). session-cookie-partitioned is not in ingress-nginx
// v1.15.1: it follows its open pull request #11242 (`Partitioned` after
// `SameSite`, whatever the scheme).
import { integerParser, optionParser, parseBoolean, parseCookieName, parseUrlPath, patternParser } from '../settings/valueSyntax.js';
import type { Balancing, SessionAffinity, SessionCookie } from '../types.js';
import { issuesIfSet, type AnnotationDefinition, type AnnotationGroup } from './annotationDefinition.js';

/** ingress-nginx's default; its Lua balancer's own default (`route`) never applies. */
const DEFAULT_COOKIE_NAME = 'INGRESSCOOKIE';

const DNS_LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
/** A leading dot is legacy cookie syntax for the same thing; browsers ignore it. */
const COOKIE_DOMAIN = new RegExp(`^(?=.{1,254}$)\\.?(?:${DNS_LABEL}\\.)*${DNS_LABEL}$`);

/** Cookie lifetimes are not nginx timers, so a year and more is fine; negative ones (which ingress-nginx lets through) mean nothing. */
const parseCookieSeconds = integerParser(0, 2 ** 31 - 1, ' of seconds');

// Case-insensitive options, as ingress-nginx.
export const affinity: AnnotationDefinition<'cookie'> = { name: 'affinity', risk: 'Low', parse: optionParser(['cookie'], true) };

const affinityMode: AnnotationDefinition<SessionAffinity['mode']> = {
  name: 'affinity-mode',
  risk: 'Medium',
  parse: optionParser(['balanced', 'persistent'], true),
};

const sessionCookieName: AnnotationDefinition<string> = { name: 'session-cookie-name', risk: 'Medium', parse: parseCookieName };

const sessionCookiePath: AnnotationDefinition<string> = { name: 'session-cookie-path', risk: 'Medium', parse: parseUrlPath };

const sessionCookieDomain: AnnotationDefinition<string> = {
  name: 'session-cookie-domain',
  risk: 'Medium',
  parse: patternParser(COOKIE_DOMAIN, 'a domain name such as example.com or .example.com'),
};

const sessionCookieMaxAge: AnnotationDefinition<number> = { name: 'session-cookie-max-age', risk: 'Medium', parse: parseCookieSeconds };

const sessionCookieExpires: AnnotationDefinition<number> = { name: 'session-cookie-expires', risk: 'Medium', parse: parseCookieSeconds };

const sessionCookieSecure: AnnotationDefinition<boolean> = { name: 'session-cookie-secure', risk: 'Low', parse: parseBoolean };

const sessionCookieSameSite: AnnotationDefinition<NonNullable<SessionCookie['sameSite']>> = {
  name: 'session-cookie-samesite',
  risk: 'Low',
  parse: optionParser(['None', 'Lax', 'Strict'], true),
};

const sessionCookieConditionalSameSiteNone: AnnotationDefinition<boolean> = {
  name: 'session-cookie-conditional-samesite-none',
  risk: 'Low',
  parse: parseBoolean,
};

const sessionCookieChangeOnFailure: AnnotationDefinition<boolean> = {
  name: 'session-cookie-change-on-failure',
  risk: 'Low',
  parse: parseBoolean,
};

const sessionCookiePartitioned: AnnotationDefinition<boolean> = { name: 'session-cookie-partitioned', risk: 'Low', parse: parseBoolean };

/** What only means something with `affinity: cookie`. */
const AFFINITY_SETTINGS = [
  affinityMode,
  sessionCookieName,
  sessionCookiePath,
  sessionCookieDomain,
  sessionCookieMaxAge,
  sessionCookieExpires,
  sessionCookieSecure,
  sessionCookieSameSite,
  sessionCookieConditionalSameSiteNone,
  sessionCookieChangeOnFailure,
  sessionCookiePartitioned,
];

export const sessionAffinityAnnotations: AnnotationGroup<Balancing['affinity']> = {
  annotations: [affinity, ...AFFINITY_SETTINGS],
  issues: (values) => {
    if (values.get(affinity) === undefined) {
      return issuesIfSet(values, AFFINITY_SETTINGS, 'ignored', 'ignored: it has no effect without affinity: "cookie"');
    }
    if (values.get(sessionCookieSameSite) === 'None') return [];
    const reason = 'ignored: it has no effect unless session-cookie-samesite is "None"';
    return issuesIfSet(values, [sessionCookieConditionalSameSiteNone], 'ignored', reason);
  },
  resolve: (values) => {
    if (values.get(affinity) === undefined) return undefined;
    return {
      mode: values.get(affinityMode) ?? 'balanced',
      cookie: {
        name: values.get(sessionCookieName) ?? DEFAULT_COOKIE_NAME,
        path: values.get(sessionCookiePath),
        domain: values.get(sessionCookieDomain),
        maxAge: values.get(sessionCookieMaxAge),
        expires: values.get(sessionCookieExpires),
        secure: values.get(sessionCookieSecure) ?? false,
        sameSite: values.get(sessionCookieSameSite),
        conditionalSameSiteNone: values.get(sessionCookieConditionalSameSiteNone) ?? false,
        changeOnFailure: values.get(sessionCookieChangeOnFailure) ?? false,
        partitioned: values.get(sessionCookiePartitioned) ?? false,
      },
    };
  },
};
