// Which ngx_http_lua_module.so nginx loads. Debian 12's (0.10.23) builds an
// OpenSSL context for Lua's cosockets in every location, `if` and server
// block: 17,018 of the 17,019 contexts nginx built for 2,000 synthetic
// Ingresses, most of `nginx -t`'s time and memory. scripts/build-lua-module.sh
// builds the same Debian source with one patch (a block without lua_ssl_*
// directives of its own shares its parent's context) and scripts/setup.sh and
// the Dockerfile install it here. Without it, Portico runs Debian's and says so.
import { existsSync } from 'node:fs';
import { posix } from 'node:path';
import type { Logger } from '../../log/logger.js';
import { DEFAULT_MODULES_DIR } from './render/renderContext.js';

/** Where scripts/setup.sh and the Dockerfile install the module scripts/build-lua-module.sh builds. */
export const PORTICO_LUA_MODULE = '/usr/lib/portico/ngx_http_lua_module.so';
export const DEBIAN_LUA_MODULE = posix.join(DEFAULT_MODULES_DIR, 'ngx_http_lua_module.so');

export interface LuaModuleChoice {
  readonly file: string;
  /** Portico's build: location blocks share their cosocket TLS context. */
  readonly sharesTlsContexts: boolean;
}

export function chooseLuaModule(portico = PORTICO_LUA_MODULE): LuaModuleChoice {
  return existsSync(portico) ? { file: portico, sharesTlsContexts: true } : { file: DEBIAN_LUA_MODULE, sharesTlsContexts: false };
}

/** The module to load; a warning when it is Debian's, whose cost grows with every location block. */
export function chosenLuaModule(logger: Logger): string {
  const choice = chooseLuaModule();
  if (!choice.sharesTlsContexts) {
    logger.warn(
      { luaModule: choice.file, missing: PORTICO_LUA_MODULE },
      "Portico's lua-nginx-module build is not installed (scripts/setup.sh installs it): Debian's builds an OpenSSL context in every location block, which makes nginx -t, reloads and nginx's memory several times larger with thousands of Ingresses",
    );
  }
  return choice.file;
}
