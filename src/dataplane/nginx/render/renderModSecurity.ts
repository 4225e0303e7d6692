// ModSecurity in nginx.conf, with ingress-nginx's semantics: the ConfigMap's
// enable-modsecurity turns it on in the http block (Portico's detection-only
// modsecurity.conf, plus the OWASP CRS with enable-owasp-modsecurity-crs);
// a location's annotations then only add to it or turn it off, while without
// the ConfigMap's key an Ingress's enable-modsecurity turns it on in its own
// locations. The module is loaded only when something enables it, and
// nothing is rendered in a location that does not use it.
import { posix } from 'node:path';
import type { GlobalSettings } from '../../../model/settings/globalSettings.js';
import type { Configuration, ModSecurityAnnotations } from '../../../model/types.js';
import { MODSECURITY_MODULE_FILE, OWASP_CRS_RULES, PORTICO_MODSECURITY_RULES } from '../modSecurityFiles.js';
import { describeValue, filePath, literal, template } from './arguments.js';
import type { ConfigBuilder } from './configBuilder.js';
import { onOff } from './renderHttp.js';
import type { RenderContext } from './renderContext.js';

/** Whether nginx must load the module: the ConfigMap or some location enables ModSecurity. */
export function usesModSecurity(configuration: Configuration): boolean {
  if (configuration.settings.enableModsecurity) return true;
  return configuration.servers.some((server) => server.locations.some((location) => location.annotations.modSecurity?.enable === true));
}

/**
 * The main context's load_module, before the http block (a cluster without ModSecurity does not pay for it) and
 * after the Lua modules: loaded before them, the master panics in Lua's init ("unprotected error in call to Lua API").
 */
export function renderModSecurityModule(main: ConfigBuilder, configuration: Configuration, context: RenderContext): void {
  if (usesModSecurity(configuration)) main.directive('load_module', filePath(posix.join(context.modulesDir, MODSECURITY_MODULE_FILE)));
}

/**
 * Portico's modsecurity.conf, then its audit log: libmodsecurity opens that
 * file as given (relative to the master's working directory, not nginx's
 * prefix), so it must be absolute, and a ModSecurity token (no quotes or spaces).
 */
function renderPorticoRules(block: ConfigBuilder, context: RenderContext): void {
  const auditLog = context.paths.modSecurityAuditLog;
  if (!/^\/[A-Za-z0-9._/-]+$/.test(auditLog)) throw new Error(`unsupported ModSecurity audit log path: ${describeValue(auditLog)}`);
  block.directive('modsecurity_rules_file', filePath(PORTICO_MODSECURITY_RULES));
  block.directive('modsecurity_rules', literal(`SecAuditLog ${auditLog}`));
}

/** The ConfigMap's enable-modsecurity and enable-owasp-modsecurity-crs, for every location of the http block. */
export function renderModSecurityHttp(http: ConfigBuilder, settings: GlobalSettings, context: RenderContext): void {
  if (!settings.enableModsecurity) return;
  http.directive('modsecurity', onOff(true));
  // The ConfigMap's modsecurity-snippet (admitted with allow-snippet-annotations) replaces modsecurity.conf, as in ingress-nginx.
  if (settings.modsecuritySnippet !== undefined) http.directive('modsecurity_rules', literal(settings.modsecuritySnippet));
  else renderPorticoRules(http, context);
  if (settings.enableOwaspModsecurityCrs) http.directive('modsecurity_rules_file', filePath(OWASP_CRS_RULES));
}

/** Portico's internal servers (status, live-state endpoints, no-endpoints answers) are never inspected, as ingress-nginx's. */
export function renderModSecurityOff(server: ConfigBuilder, settings: GlobalSettings): void {
  if (settings.enableModsecurity) server.directive('modsecurity', onOff(false));
}

/**
 * One location's annotations over the ConfigMap's, as ingress-nginx's
 * buildModSecurityForLocation: an explicit "false" turns it off; a snippet
 * replaces Portico's modsecurity.conf where the location loads its own; the
 * CRS is added unless the http block has it already. enable-owasp-core-rules,
 * a transaction id or a snippet do nothing where ModSecurity is off.
 */
export function renderModSecurityLocation(
  body: ConfigBuilder,
  modSecurity: ModSecurityAnnotations | undefined,
  settings: GlobalSettings,
  context: RenderContext,
): void {
  const global = settings.enableModsecurity;
  if (modSecurity === undefined || (!global && modSecurity.enable !== true)) return;
  if (modSecurity.enable === false) {
    body.directive('modsecurity', onOff(false));
    return;
  }
  if (!global) body.directive('modsecurity', onOff(true));
  if (modSecurity.snippet !== undefined) body.directive('modsecurity_rules', literal(modSecurity.snippet));
  if (modSecurity.transactionId !== undefined) body.directive('modsecurity_transaction_id', template(modSecurity.transactionId));
  if (!global && modSecurity.snippet === undefined) renderPorticoRules(body, context);
  if (!settings.enableOwaspModsecurityCrs && modSecurity.owaspCoreRules)
    body.directive('modsecurity_rules_file', filePath(OWASP_CRS_RULES));
}
