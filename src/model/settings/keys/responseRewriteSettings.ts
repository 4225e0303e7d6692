// proxy-cookie-domain, proxy-cookie-path, proxy-redirect-from and
// proxy-redirect-to: the ConfigMap's defaults of the annotations of the same
// names, with their syntax (responseRewriteAnnotations.ts). Their default is
// ingress-nginx's "off", which Portico renders as nothing (nginx's own default
// for the cookie rewrites): only a value other than "off" reaches a location.
import {
  parseCookieDomain,
  parseCookiePath,
  parseRedirectFrom,
  parseRedirectTo,
  type HeaderRewrite,
} from '../../annotations/responseRewriteAnnotations.js';
import type { SpecTable } from '../settingSpec.js';
import type { ParsedValue, ValueParser } from '../valueSyntax.js';

export interface ResponseRewriteSettings {
  /** proxy-cookie-domain: undefined is "off" */
  proxyCookieDomain: { from: string; to: string } | undefined;
  /** proxy-cookie-path: undefined is "off" */
  proxyCookiePath: { from: string; to: string } | undefined;
  /** proxy-redirect-from: undefined is "off" */
  proxyRedirectFrom: string | undefined;
  /** proxy-redirect-to: undefined is "off" */
  proxyRedirectTo: string | undefined;
}

export const RESPONSE_REWRITE_DEFAULTS: ResponseRewriteSettings = {
  proxyCookieDomain: undefined,
  proxyCookiePath: undefined,
  proxyRedirectFrom: undefined,
  proxyRedirectTo: undefined,
};

/** The annotation's parser, with "off" (the default) as undefined. */
function offAsDefault<T>(parse: ValueParser<T | 'off'>): ValueParser<T | undefined> {
  return (text): ParsedValue<T | undefined> => {
    const parsed = parse(text);
    if (!parsed.ok) return parsed;
    return { ok: true, value: parsed.value === 'off' ? undefined : parsed.value };
  };
}

const parseRewrite = (parse: ValueParser<HeaderRewrite>) => offAsDefault<{ from: string; to: string }>(parse);

export const RESPONSE_REWRITE_SPECS: SpecTable<ResponseRewriteSettings> = {
  proxyCookieDomain: { key: 'proxy-cookie-domain', parse: parseRewrite(parseCookieDomain) },
  proxyCookiePath: { key: 'proxy-cookie-path', parse: parseRewrite(parseCookiePath) },
  proxyRedirectFrom: { key: 'proxy-redirect-from', parse: offAsDefault(parseRedirectFrom) },
  proxyRedirectTo: { key: 'proxy-redirect-to', parse: offAsDefault(parseRedirectTo) },
};
