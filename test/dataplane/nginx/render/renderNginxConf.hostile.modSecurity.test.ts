// Hostile values in the fields of ModSecurity: see renderNginxConf.hostile.test.ts.
import assert from 'node:assert/strict';
import type { Configuration } from '../../../../src/model/types.js';
import { describe, test } from 'node:test';
import { buildNginxConf, renderNginxConf } from '../../../../src/dataplane/nginx/render/renderNginxConf.js';
import { annotations, configuration, location, server, testContext } from './fixtures.js';
import { missingNginx, nginxSyntaxCheck } from './nginxPrefix.js';
import { parseNginxConf } from './nginxConfTokenizer.js';
import { allDirectives, argsOf, expectedWords, locationOf, skeleton } from './parsedTree.js';
import { HOSTILE_STRINGS, web, serverMatching } from './hostileValues.js';

describe('hostile ModSecurity snippets and transaction ids', () => {
  // Valid ModSecurity (so nginx -t loads it), hostile to nginx's syntax: quotes, braces, semicolons, variables, a backslash.
  const HOSTILE_RULE = `SecRule ARGS "@contains evil" "id:4242,phase:2,log,pass,msg:'\\"; } ssl_engine /tmp/evil.so; server { # a;b{c}d $host \${x}'"`;
  const HOSTILE_TRANSACTION_ID = '"; } ssl_engine /tmp/evil.so; #${request_id}';
  const modSecurityConfiguration = (snippet: string, transactionId: string): Configuration => {
    const base = location('/', 'prefix', web.name);
    const annotated = {
      ...base,
      annotations: { ...annotations(), modSecurity: { enable: true, owaspCoreRules: false, snippet, transactionId } },
    };
    return configuration({ servers: [server('_', []), server('waf.example.com', [annotated])], backends: [web] });
  };
  const modSecurityContext = testContext({ paths: { modSecurityAuditLog: '/tmp/portico-hostile-modsec-audit.log' } });
  const hostileModSecurity = modSecurityConfiguration(HOSTILE_RULE, HOSTILE_TRANSACTION_ID);
  const rendered = renderNginxConf(hostileModSecurity, modSecurityContext);
  const tree = parseNginxConf(rendered);

  test('each is one whole argument of its directive, and the structure is that of a benign rendering', () => {
    const waf = locationOf(serverMatching(tree, 'waf.example.com'), '/');
    assert.deepEqual(argsOf(waf, 'modsecurity_rules'), [[HOSTILE_RULE]]);
    assert.deepEqual(argsOf(waf, 'modsecurity_transaction_id'), [[HOSTILE_TRANSACTION_ID]]);
    assert.deepEqual(tree, expectedWords(buildNginxConf(hostileModSecurity, modSecurityContext)));
    const benignRendering = renderNginxConf(modSecurityConfiguration('SecRuleEngine On', 'tx-${request_id}'), modSecurityContext);
    assert.deepEqual(skeleton(tree), skeleton(parseNginxConf(benignRendering)));
    assert.ok(!allDirectives(tree).some((directive) => directive.name === 'ssl_engine'));
  });

  test('a transaction id whose "$" starts no variable reference is refused', () => {
    for (const value of HOSTILE_STRINGS.filter((candidate) => /\$(?![A-Za-z0-9_]|\{[A-Za-z0-9_]+\})/.test(candidate))) {
      assert.throws(
        () => renderNginxConf(modSecurityConfiguration('SecRuleEngine On', value), modSecurityContext),
        /malformed nginx variable/,
      );
    }
  });

  test('passes nginx -t with the ModSecurity module', { skip: missingNginx }, async () => {
    await nginxSyntaxCheck(rendered, modSecurityContext);
  });
});
