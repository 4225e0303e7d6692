// Where ModSecurity's parts are on a Debian 12 machine (scripts/debian-packages.txt)
// and whether they are there: nginx.conf names them only for configurations
// that enable ModSecurity, and an Ingress asking for it on a machine without
// them is refused (src/controller/ingressAcceptance.ts).
import { existsSync } from 'node:fs';
import { posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ModSecurityInstallation } from '../../model/annotations/modSecurityAnnotations.js';
import { DEFAULT_MODULES_DIR } from './render/renderContext.js';

/** libnginx-mod-http-modsecurity's module, in the modules directory of the Lua modules. */
export const MODSECURITY_MODULE_FILE = 'ngx_http_modsecurity_module.so';

/** Portico's base configuration (the repository's modsecurity/, next to lua/): detection only, as ingress-nginx's. */
export const PORTICO_MODSECURITY_RULES = fileURLToPath(new URL('../../../modsecurity/modsecurity.conf', import.meta.url));

/** Portico's loader of Debian's OWASP CRS 3.3 (modsecurity/owasp-crs.conf). */
export const OWASP_CRS_RULES = fileURLToPath(new URL('../../../modsecurity/owasp-crs.conf', import.meta.url));

/** What OWASP_CRS_RULES includes that Debian's modsecurity-crs installs. */
const CRS_SETUP = '/etc/modsecurity/crs/crs-setup.conf';

/** What this machine has of ModSecurity, read once (packages do not come and go under a running controller). */
export function probeModSecurity(modulesDir = DEFAULT_MODULES_DIR): ModSecurityInstallation {
  return {
    module: existsSync(posix.join(modulesDir, MODSECURITY_MODULE_FILE)) && existsSync(PORTICO_MODSECURITY_RULES),
    coreRuleSet: existsSync(OWASP_CRS_RULES) && existsSync(CRS_SETUP),
  };
}
