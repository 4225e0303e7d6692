// A location's basic or digest authentication (auth-type) and its `satisfy`.
// The check is lua/portico/authentication.lua's, in the access phase, so
// nginx's `satisfy` combines it with allow/deny (and auth_request) as it does
// its own modules: ngx_lua runs it last in the phase, and `any` skips it once
// an address is allowed. Only the location's key is written here (its users
// are live state, basicAuthState.ts); locations without auth-type get nothing.
import type { LocationAnnotations } from '../../../model/types.js';
import { basicAuthKey } from '../../live/basicAuthState.js';
import { describeValue, raw, text } from './arguments.js';
import type { ConfigBuilder } from './configBuilder.js';
import { luaCall, type LuaCall } from './luaCall.js';

const SATISFY: Readonly<Record<string, 'any' | 'all'>> = { any: 'any', all: 'all' };

function refuseSatisfy(value: string): never {
  throw new Error(`invalid satisfy: ${describeValue(value)}`);
}

/** Writes satisfy and the 503 of an unusable Secret; adds the access-phase Lua check to `accessChecks` (one block per location, renderLocation.ts). */
export function renderAuthentication(location: ConfigBuilder, annotations: LocationAnnotations, accessChecks: LuaCall[]): void {
  const { basicAuth, satisfy, backendProtocol } = annotations;
  if (satisfy !== undefined) location.directive('satisfy', raw.keyword(SATISFY[satisfy] ?? refuseSatisfy(satisfy)));
  if (basicAuth === undefined) return;
  // The Secret is unusable (the model warned): refuse in the rewrite phase, before `satisfy any` could let an address through.
  if (basicAuth.users === undefined) {
    location.directive('return', raw.integer(503));
    return;
  }
  accessChecks.push(luaCall('portico.authentication', 'access', { key: basicAuthKey(basicAuth, basicAuth.users) }));
  // As ingress-nginx: the credentials were for the proxy, the backend does not see them.
  const module = backendProtocol === 'GRPC' || backendProtocol === 'GRPCS' ? 'grpc' : 'proxy';
  location.directive(`${module}_set_header`, raw.headerName('Authorization'), text(''));
}
