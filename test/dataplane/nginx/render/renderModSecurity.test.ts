// ModSecurity in nginx.conf: ingress-nginx's combinations of the ConfigMap's
// enable-modsecurity / enable-owasp-modsecurity-crs with a location's
// annotations (its test/e2e/annotations/modsecurity cases), the module loaded
// only when something enables it, and nothing in locations that do not use it.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MODSECURITY_MODULE_FILE, OWASP_CRS_RULES, PORTICO_MODSECURITY_RULES } from '../../../../src/dataplane/nginx/modSecurityFiles.js';
import { renderNginxConf } from '../../../../src/dataplane/nginx/render/renderNginxConf.js';
import type { GlobalSettings } from '../../../../src/model/settings/globalSettings.js';
import type { Configuration, ModSecurityAnnotations } from '../../../../src/model/types.js';
import { annotations, backend, configuration, location, server, testContext } from './fixtures.js';
import { missingNginx, nginxSyntaxCheck } from './nginxPrefix.js';
import { parseNginxConf, type ParsedDirective } from './nginxConfTokenizer.js';
import { allDirectives, argsOf, locationOf, only, serverNamed } from './parsedTree.js';

const AUDIT_LOG = '/tmp/portico-render-test-modsec-audit.log';
const context = testContext({ paths: { modSecurityAuditLog: AUDIT_LOG } });
const web = backend('default-web-80', [{ address: '10.0.0.1', port: 8080 }]);
const MODULE = `/usr/share/nginx/modules/${MODSECURITY_MODULE_FILE}`;

/** waf.example.com with `/waf` (these annotations) and `/open` (none), as two Ingresses would make it. */
function wafConfiguration(modSecurity: ModSecurityAnnotations | undefined, settings: Partial<GlobalSettings> = {}): Configuration {
  const waf = location('/waf', 'prefix', web.name);
  return configuration({
    servers: [
      server('_', []),
      server('waf.example.com', [
        { ...waf, annotations: { ...annotations(), ...(modSecurity === undefined ? {} : { modSecurity }) } },
        location('/open', 'prefix', web.name),
      ]),
    ],
    backends: [web],
    settings,
  });
}

function rendered(config: Configuration): { tree: ParsedDirective[]; waf: string[][]; open: string[][]; http: string[][] } {
  const tree = parseNginxConf(renderNginxConf(config, context));
  const host = serverNamed(tree, 'waf.example.com');
  const modSecurityOf = (block: ParsedDirective): string[][] =>
    (block.children ?? []).filter((child) => child.name.startsWith('modsecurity')).map((child) => [child.name, ...child.args]);
  return {
    tree,
    waf: modSecurityOf(locationOf(host, '/waf/')),
    open: modSecurityOf(locationOf(host, '/open/')),
    http: modSecurityOf(only(tree, 'http')),
  };
}

const loadsModule = (tree: ParsedDirective[]): boolean =>
  argsOf({ name: '', args: [], children: tree }, 'load_module').some(([path]) => path === MODULE);
const anyModSecurity = (tree: ParsedDirective[]): boolean =>
  allDirectives(tree).some((directive) => directive.name.startsWith('modsecurity'));

const PORTICO_RULES = [
  ['modsecurity_rules_file', PORTICO_MODSECURITY_RULES],
  ['modsecurity_rules', `SecAuditLog ${AUDIT_LOG}`],
];
const CRS = ['modsecurity_rules_file', OWASP_CRS_RULES];

describe('without the ConfigMap keys', () => {
  test('nothing enables ModSecurity: no module, no directive, the same text as without the annotations', () => {
    for (const modSecurity of [
      undefined,
      { enable: false, owaspCoreRules: true },
      { enable: undefined, owaspCoreRules: true, transactionId: '$request_id' },
    ]) {
      const { tree } = rendered(wafConfiguration(modSecurity));
      assert.equal(loadsModule(tree), false, JSON.stringify(modSecurity));
      assert.equal(anyModSecurity(tree), false, JSON.stringify(modSecurity));
      assert.equal(renderNginxConf(wafConfiguration(modSecurity), context), renderNginxConf(wafConfiguration(undefined), context));
    }
  });

  test('enable-modsecurity turns it on in its locations only, with the detection-only modsecurity.conf and the audit log', () => {
    const { tree, waf, open, http } = rendered(wafConfiguration({ enable: true, owaspCoreRules: false }));
    assert.equal(loadsModule(tree), true);
    assert.deepEqual(waf, [['modsecurity', 'on'], ...PORTICO_RULES]);
    assert.deepEqual(open, []);
    assert.deepEqual(http, []);
  });

  test('with enable-owasp-core-rules and a transaction id', () => {
    const { waf } = rendered(wafConfiguration({ enable: true, owaspCoreRules: true, transactionId: 'modsecurity-$request_id' }));
    assert.deepEqual(waf, [['modsecurity', 'on'], ['modsecurity_transaction_id', 'modsecurity-$request_id'], ...PORTICO_RULES, CRS]);
  });

  test('a snippet replaces modsecurity.conf', () => {
    const { waf } = rendered(wafConfiguration({ enable: true, owaspCoreRules: true, snippet: 'SecRuleEngine On' }));
    assert.deepEqual(waf, [['modsecurity', 'on'], ['modsecurity_rules', 'SecRuleEngine On'], CRS]);
  });
});

describe("with the ConfigMap's enable-modsecurity", () => {
  const global = { enableModsecurity: true };

  test('the http block has it, every location inherits it, the internal servers turn it off', () => {
    const { tree, waf, open, http } = rendered(wafConfiguration(undefined, global));
    assert.equal(loadsModule(tree), true);
    assert.deepEqual(http, [['modsecurity', 'on'], ...PORTICO_RULES]);
    assert.deepEqual(waf, []);
    assert.deepEqual(open, []);
    // Status, live-state endpoints and the no-endpoints server.
    const off = allDirectives(tree).filter((directive) => directive.name === 'modsecurity' && directive.args[0] === 'off');
    assert.equal(off.length, 3);
  });

  test('enable-modsecurity "true" adds nothing ("modsecurity on" once, in http); "false" turns it off', () => {
    assert.deepEqual(rendered(wafConfiguration({ enable: true, owaspCoreRules: false }, global)).waf, []);
    assert.deepEqual(rendered(wafConfiguration({ enable: false, owaspCoreRules: true }, global)).waf, [['modsecurity', 'off']]);
  });

  test('the CRS once: in http with enable-owasp-modsecurity-crs, else in the locations asking for it', () => {
    const withCrs = rendered(wafConfiguration({ enable: true, owaspCoreRules: true }, { ...global, enableOwaspModsecurityCrs: true }));
    assert.deepEqual(withCrs.http, [['modsecurity', 'on'], ...PORTICO_RULES, CRS]);
    assert.deepEqual(withCrs.waf, []);
    assert.deepEqual(rendered(wafConfiguration({ enable: undefined, owaspCoreRules: true }, global)).waf, [CRS]);
  });

  test('enable-owasp-modsecurity-crs alone does nothing, as in ingress-nginx', () => {
    const { tree } = rendered(wafConfiguration(undefined, { enableOwaspModsecurityCrs: true }));
    assert.equal(loadsModule(tree), false);
    assert.equal(anyModSecurity(tree), false);
  });

  test('passes nginx -t with the module, modsecurity.conf and the CRS', { skip: missingNginx }, async () => {
    const config = wafConfiguration({ enable: false, owaspCoreRules: false }, { ...global, enableOwaspModsecurityCrs: true });
    await nginxSyntaxCheck(renderNginxConf(config, context), context);
  });
});

test('the audit log must be an absolute path libmodsecurity reads as one token', () => {
  for (const auditLog of ['logs/modsec_audit.log', '/tmp/a b.log', '/tmp/"x.log']) {
    const relative = testContext({ paths: { modSecurityAuditLog: auditLog } });
    assert.throws(() => renderNginxConf(wafConfiguration({ enable: true, owaspCoreRules: false }), relative), /audit log path/);
  }
});
