import { test } from 'node:test';
import assert from 'node:assert/strict';
import { accepted, assertRefusedWith, PREFIX } from './annotationTestSupport.js';

const SNIPPETS = ['configuration-snippet', 'server-snippet', 'auth-snippet', 'modsecurity-snippet', 'stream-snippet'];
const SNIPPET = 'more_set_headers "X-Frame-Options: DENY";';
const SNIPPETS_ADMITTED = { allowSnippetAnnotations: true, annotationsRiskLevel: 'Critical' as const };

test('snippet annotations are refused unless the ConfigMap allows them and admits Critical', () => {
  for (const name of SNIPPETS) {
    for (const settings of [
      {},
      { allowSnippetAnnotations: true },
      { annotationsRiskLevel: 'Critical' as const },
      { allowSnippetAnnotations: false, annotationsRiskLevel: 'Critical' as const },
    ]) {
      assertRefusedWith(
        { [name]: SNIPPET },
        [`${PREFIX}/${name}`, 'allow-snippet-annotations: "true"', 'annotations-risk-level: Critical'],
        settings,
      );
    }
  }
});

test('the refusal says what the ConfigMap has', () => {
  assertRefusedWith({ 'server-snippet': SNIPPET }, ['(it has false and High)']);
});

test('an admitted configuration-snippet goes to the location, as written', () => {
  const { value, warnings } = accepted({ 'configuration-snippet': ` ${SNIPPET} ` }, SNIPPETS_ADMITTED);
  assert.equal(value.location.configurationSnippet, SNIPPET);
  assert.deepEqual(warnings, []);
  assert.equal('configurationSnippet' in accepted({}, SNIPPETS_ADMITTED).value.location, false);
});

test('an admitted server-snippet is kept as written, for the host to choose', () => {
  const { value, warnings } = accepted({ 'server-snippet': ` ${SNIPPET} ` }, SNIPPETS_ADMITTED);
  assert.equal(value.location.serverSnippet, SNIPPET);
  assert.equal(value.location.configurationSnippet, undefined);
  assert.deepEqual(warnings, []);
  assert.equal('serverSnippet' in accepted({}, SNIPPETS_ADMITTED).value.location, false);
});

test('an admitted stream-snippet is kept as written for the stream block, not in the locations', () => {
  const { value, warnings } = accepted({ 'stream-snippet': ` ${SNIPPET} ` }, SNIPPETS_ADMITTED);
  assert.equal(value.streamSnippet, SNIPPET);
  assert.equal(value.location.serverSnippet, undefined);
  assert.equal(value.location.configurationSnippet, undefined);
  assert.deepEqual(warnings, []);
  assert.equal('streamSnippet' in accepted({}, SNIPPETS_ADMITTED).value, false);
});

test('admitted snippets written verbatim may span lines (YAML blocks, as in ingress-nginx), with tabs', () => {
  const multiLine = 'more_set_headers "X-A: a";\n\tmore_set_headers "X-B: b";';
  assert.equal(accepted({ 'configuration-snippet': multiLine }, SNIPPETS_ADMITTED).value.location.configurationSnippet, multiLine);
  assert.deepEqual(
    accepted({ 'server-snippet': 'deny all;\r\nallow all;' }, SNIPPETS_ADMITTED).value.location.serverSnippet,
    'deny all;\r\nallow all;',
  );
  const server = 'server {\n\tlisten 127.0.0.1:9000;\n\treturn "x";\n}';
  assert.equal(accepted({ 'stream-snippet': server }, SNIPPETS_ADMITTED).value.streamSnippet, server);
});

test('admitted snippets still get the value checks', () => {
  assertRefusedWith({ 'configuration-snippet': 'deny all;\u0000allow all;' }, ['control character'], SNIPPETS_ADMITTED);
  assertRefusedWith({ 'server-snippet': 'deny all;\u001b[2Jallow all;' }, ['control character'], SNIPPETS_ADMITTED);
  assertRefusedWith({ 'stream-snippet': 'server {}\u0000' }, ['control character'], SNIPPETS_ADMITTED);
  // modsecurity_rules takes the snippet as one quoted argument: one line only.
  assertRefusedWith({ 'modsecurity-snippet': 'SecRuleEngine On\nSecAuditEngine On' }, ['control character'], SNIPPETS_ADMITTED);
  // Line breaks are a snippet's alone.
  assertRefusedWith({ 'rewrite-target': '/a\nb' }, ['control character'], SNIPPETS_ADMITTED);
  assertRefusedWith({ 'server-snippet': 'content_by_lua_block {}' }, ['annotation-value-word-blocklist'], {
    ...SNIPPETS_ADMITTED,
    annotationValueWordBlocklist: ['_by_lua'],
  });
});
