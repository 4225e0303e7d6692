// Stand-ins for ingress-nginx's own Lua files (its /etc/nginx/lua), which the
// ingress-nginx-shaped nginx.conf names (ingressNginxShapedConf.ts) and Debian
// does not ship. `nginx -t` reads none of the *_by_lua_file files but the
// init_by_lua one (it runs in the master at every load); the others only have
// to exist so the same file could start. Each stub does nothing: what is
// measured is nginx loading the configuration's shape, not ingress-nginx's Lua.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/** The files the template names, by role, relative to the Lua directory. */
export const INGRESS_NGINX_LUA = {
  init: 'ngx_conf_init.lua',
  initWorker: 'ngx_conf_init_worker.lua',
  balancer: 'nginx/ngx_conf_balancer.lua',
  certificate: 'nginx/ngx_conf_certificate.lua',
  rewrite: 'nginx/ngx_rewrite.lua',
  headerFilter: 'nginx/ngx_conf_srv_hdr_filter.lua',
  log: 'nginx/ngx_conf_log_block.lua',
  isDynamicLbInitialized: 'nginx/ngx_conf_is_dynamic_lb_initialized.lua',
  configuration: 'nginx/ngx_conf_configuration.lua',
} as const;

export async function writeIngressNginxLuaStubs(luaDir: string): Promise<void> {
  for (const file of Object.values(INGRESS_NGINX_LUA)) {
    const path = join(luaDir, file);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, `-- stub of ingress-nginx's ${file} (bench/support/ingressNginxLuaStubs.ts)\n`);
  }
}
