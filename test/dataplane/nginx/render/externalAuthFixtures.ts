// External auth settings for the renderer's tests (model/types.ts ExternalAuth), with ingress-nginx's defaults.
import type { ExternalAuth, Location } from '../../../../src/model/types.js';

export function externalAuth(overrides: Partial<ExternalAuth> = {}): ExternalAuth {
  return {
    url: { scheme: 'http', host: '127.0.0.1', port: 9000, path: '/check' },
    method: undefined,
    signin: undefined,
    signinRedirectParam: 'rd',
    responseHeaders: [],
    requestRedirect: undefined,
    cacheKey: undefined,
    cacheDurations: [{ codes: [200, 202, 401], time: '5m' }],
    alwaysSetCookie: false,
    proxySetHeadersFrom: undefined,
    proxySetHeaders: [],
    denied: undefined,
    snippet: undefined,
    global: false,
    keepalive: undefined,
    ...overrides,
  };
}

/** `location` with `auth` as its external auth. */
export function withAuth(location: Location, auth: ExternalAuth): Location {
  return { ...location, annotations: { ...location.annotations, externalAuth: auth } };
}
