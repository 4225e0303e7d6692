import { test } from 'node:test';
import assert from 'node:assert/strict';
import { judgeIngressVersion } from '../../../src/controller/ingressAcceptance.js';
import { KNOWN_ANNOTATIONS } from '../../../src/model/annotations/annotationRegistry.js';
import { modSecurityUnavailable, parseTransactionId } from '../../../src/model/annotations/modSecurityAnnotations.js';
import { DEFAULT_SETTINGS } from '../../../src/model/settings/globalSettings.js';
import { accepted, assertRefusedWith, PREFIX, prefixed } from './annotationTestSupport.js';

const SNIPPETS_ADMITTED = { allowSnippetAnnotations: true, annotationsRiskLevel: 'Critical' as const };
const INSTALLED = { module: true, coreRuleSet: true };

test("ingress-nginx's risk levels: enable-modsecurity and enable-owasp-core-rules Low, the transaction id High, the snippet a Critical snippet", () => {
  assert.equal(KNOWN_ANNOTATIONS.get('enable-modsecurity')?.risk, 'Low');
  assert.equal(KNOWN_ANNOTATIONS.get('enable-owasp-core-rules')?.risk, 'Low');
  assert.equal(KNOWN_ANNOTATIONS.get('modsecurity-transaction-id')?.risk, 'High');
  const snippet = KNOWN_ANNOTATIONS.get('modsecurity-snippet');
  assert.equal(snippet?.kind, 'snippet');
  assert.ok(snippet.definition !== undefined, 'implemented, not ignored once admitted');
  for (const name of ['enable-modsecurity', 'enable-owasp-core-rules', 'modsecurity-transaction-id']) {
    assert.equal(KNOWN_ANNOTATIONS.get(name)?.kind, 'implemented', name);
  }
});

test('an Ingress without ModSecurity annotations has no modSecurity part (its locations render nothing)', () => {
  assert.equal('modSecurity' in accepted({}).value.location, false);
});

test('valid values', () => {
  assert.deepEqual(
    accepted({
      'enable-modsecurity': 'true',
      'enable-owasp-core-rules': 'true',
      'modsecurity-transaction-id': 'modsecurity-$request_id',
    }).value.location.modSecurity,
    { enable: true, owaspCoreRules: true, transactionId: 'modsecurity-$request_id' },
  );
  // "false" is kept apart from unset: it turns the ConfigMap's ModSecurity off in these locations.
  assert.deepEqual(accepted({ 'enable-modsecurity': 'false' }).value.location.modSecurity, { enable: false, owaspCoreRules: false });
  assert.deepEqual(accepted({ 'enable-owasp-core-rules': 'true' }).value.location.modSecurity, { enable: undefined, owaspCoreRules: true });
  assert.deepEqual(
    accepted({ 'enable-modsecurity': 'true', 'modsecurity-snippet': ' SecRuleEngine On ' }, SNIPPETS_ADMITTED).value.location.modSecurity,
    { enable: true, owaspCoreRules: false, snippet: 'SecRuleEngine On' },
  );
});

test('transaction ids: variables nginx.conf has, in either spelling, and literal letters, digits, "-" and "_"', () => {
  for (const value of ['$request_id', '${request_id}', 'tx-${request_id}_$msec', '$http_x_request_id', 'fixed-id_1', '${host}-${pid}']) {
    assert.deepEqual(parseTransactionId(value), { ok: true, value }, value);
  }
});

test('invalid and hostile transaction ids are refused', () => {
  for (const value of [
    '$',
    '${',
    '${request_id',
    '$request_id}',
    '{}',
    '$no_such_variable',
    '${no_such_variable}',
    '$1',
    'a b',
    'a.b',
    'x"; } ssl_engine /tmp/evil.so; #',
    "'; include /etc/passwd; '",
    '$host;load_module',
    '\\$host',
    `x${'a'.repeat(256)}`,
  ]) {
    assert.equal(parseTransactionId(value).ok, false, value);
    assertRefusedWith({ 'modsecurity-transaction-id': value }, [`${PREFIX}/modsecurity-transaction-id`, 'invalid value']);
  }
  assertRefusedWith({ 'modsecurity-transaction-id': '$nope' }, ['"$nope" is not one']);
});

test('booleans only for the switches', () => {
  for (const name of ['enable-modsecurity', 'enable-owasp-core-rules']) {
    for (const value of ['yes', 'on', '2', 'true; load_module x']) assertRefusedWith({ [name]: value }, [`${PREFIX}/${name}`]);
  }
});

test('modsecurity-snippet is refused unless the ConfigMap admits snippets, and gets the value checks when it does', () => {
  assertRefusedWith({ 'modsecurity-snippet': 'SecRuleEngine On' }, ['allow-snippet-annotations: "true"']);
  assertRefusedWith({ 'modsecurity-snippet': 'SecRuleEngine On' }, ['allow-snippet-annotations'], { annotationsRiskLevel: 'Critical' });
  assertRefusedWith({ 'modsecurity-snippet': 'SecRuleEngine On\nSecAuditLog /etc/passwd' }, ['control character'], SNIPPETS_ADMITTED);
});

test('the transaction id is High risk: refused below annotations-risk-level High', () => {
  assertRefusedWith({ 'modsecurity-transaction-id': '$request_id' }, ['risk level High'], { annotationsRiskLevel: 'Medium' });
});

test('an Ingress asking for ModSecurity is refused on a machine without the module, or without the CRS it asks for', () => {
  const asks = { enable: true, owaspCoreRules: true };
  assert.deepEqual(modSecurityUnavailable(asks, INSTALLED), []);
  assert.match(modSecurityUnavailable(asks, { module: false, coreRuleSet: true })[0] ?? '', /libnginx-mod-http-modsecurity/);
  assert.match(modSecurityUnavailable(asks, { module: true, coreRuleSet: false })[0] ?? '', /modsecurity-crs/);
  // Nothing asked, nothing missing: "false" and the CRS alone need no module (they render nothing without enable-modsecurity).
  assert.deepEqual(modSecurityUnavailable({ enable: false, owaspCoreRules: true }, { module: false, coreRuleSet: false }), []);
  assert.deepEqual(modSecurityUnavailable(undefined, { module: false, coreRuleSet: false }), []);
});

test('the acceptance step refuses such an Ingress with the reason, and accepts it where the module is installed', () => {
  const ingress = {
    metadata: { name: 'waf', namespace: 'default', annotations: prefixed({ 'enable-modsecurity': 'true' }) },
    spec: {
      rules: [
        {
          host: 'waf.example.com',
          http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }] },
        },
      ],
    },
  };
  const missing = judgeIngressVersion(ingress, PREFIX, DEFAULT_SETTINGS, { module: false, coreRuleSet: false });
  assert.equal(missing.ok, false);
  assert.match(missing.ok ? '' : missing.errors.join('\n'), /ModSecurity nginx module is not installed/);
  assert.equal(judgeIngressVersion(ingress, PREFIX, DEFAULT_SETTINGS, INSTALLED).ok, true);
});
