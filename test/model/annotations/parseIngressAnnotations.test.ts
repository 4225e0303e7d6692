import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseIngressAnnotations } from '../../../src/model/annotations/parseIngressAnnotations.js';
import { DEFAULT_SETTINGS, type RiskLevel } from '../../../src/model/settings/globalSettings.js';
import { accepted, assertRefusedWith, parseNamed, PREFIX, refused } from './annotationTestSupport.js';

const DEFAULT_ANNOTATIONS = {
  location: {
    rewrite: { useRegex: false, sslRedirect: true, forceSslRedirect: false },
    backendProtocol: 'HTTP',
    proxy: { bodySize: '1m', connectTimeout: 5, readTimeout: 60, sendTimeout: 60, buffering: 'off' },
    ipAccess: { allow: [], deny: [] },
  },
  balancing: { algorithm: 'round_robin', hashBy: undefined, affinity: undefined },
  canary: undefined,
};

test('no annotations: the ConfigMap defaults, no warnings', () => {
  assert.deepEqual(parseIngressAnnotations(undefined, { prefix: PREFIX, settings: DEFAULT_SETTINGS }), {
    ok: true,
    value: DEFAULT_ANNOTATIONS,
    warnings: [],
  });
});

test('only annotations under <prefix>/ count; others are not even checked', () => {
  const result = parseIngressAnnotations(
    {
      'kubectl.kubernetes.io/last-applied-configuration': '{\n"x": "$1;"\n}',
      'other.example/rewrite-target': 'http://evil\n',
      [`${PREFIX}-like/use-regex`]: 'maybe',
      [PREFIX]: 'x\ny',
      [`${PREFIX}/use-regex`]: 'true',
    },
    { prefix: PREFIX, settings: DEFAULT_SETTINGS },
  );
  assert.ok(result.ok);
  assert.equal(result.value.location.rewrite.useRegex, true);
  assert.deepEqual(result.warnings, []);
});

test('--annotations-prefix replaces the prefix', () => {
  const options = { prefix: 'custom.example', settings: DEFAULT_SETTINGS };
  const result = parseIngressAnnotations({ 'custom.example/use-regex': 'true', [`${PREFIX}/use-regex`]: 'bad' }, options);
  assert.ok(result.ok);
  assert.equal(result.value.location.rewrite.useRegex, true);
});

test('CR, LF and other control characters are refused in every value under the prefix, without echoing it', () => {
  for (const [value, codePoint] of [
    ['/foo\nreturn 200 pwned', 'U+000A'],
    ['/foo\rproxy_pass http://evil', 'U+000D'],
    ['/foo\tbar', 'U+0009'],
    ['/foo\0', 'U+0000'],
    ['/foo\u007f', 'U+007F'],
    ['/foo\u0085', 'U+0085'],
  ] as const) {
    for (const name of ['rewrite-target', 'enable-cors', 'no-such-annotation']) {
      const errors = refused({ [name]: value });
      assert.equal(errors.length, 1);
      assert.ok(errors[0]?.includes(`${PREFIX}/${name}`), errors[0]);
      assert.ok(errors[0]?.includes(`a control character (${codePoint} at offset`), errors[0]);
      assert.ok(!errors[0]?.includes('pwned') && !errors[0]?.includes('evil'), errors[0]);
    }
  }
});

test('a word of annotation-value-word-blocklist refuses any value under the prefix', () => {
  const settings = { annotationValueWordBlocklist: ['_by_lua', 'serviceaccount', ''] };
  for (const name of ['rewrite-target', 'enable-cors', 'no-such-annotation']) {
    const errors = refused({ [name]: '/var/run/secrets/kubernetes.io/serviceaccount' }, settings);
    assert.equal(errors.length, 1);
    assert.ok(errors[0]?.includes(`${PREFIX}/${name}`) && errors[0].includes('"serviceaccount"'), errors[0]);
    assert.ok(errors[0]?.includes('annotation-value-word-blocklist'), errors[0]);
  }
  // Case-sensitive substrings, as ingress-nginx; an empty word blocks nothing.
  assert.equal(accepted({ 'rewrite-target': '/ServiceAccount' }, settings).value.location.rewrite.target, '/ServiceAccount');
});

test('an annotation is admitted when its risk is at most annotations-risk-level', () => {
  const byRisk: Record<RiskLevel, Record<string, string>> = {
    Low: { 'use-regex': 'true' },
    Medium: { 'rewrite-target': '/' },
    High: { 'server-alias': 'www.example.com' },
    Critical: { 'configuration-snippet': 'more_set_headers "X: y";' },
  };
  const levels: RiskLevel[] = ['Low', 'Medium', 'High', 'Critical'];
  for (const [levelIndex, level] of levels.entries()) {
    for (const [riskIndex, risk] of levels.entries()) {
      const result = parseNamed(byRisk[risk], { annotationsRiskLevel: level, allowSnippetAnnotations: true });
      assert.equal(result.ok, riskIndex <= levelIndex, `${risk} annotation at level ${level}: ${JSON.stringify(result)}`);
    }
  }
});

test('the risk gate names the risk and the configured level', () => {
  assertRefusedWith({ 'rewrite-target': '/' }, [`${PREFIX}/rewrite-target`, 'risk level Medium', 'annotations-risk-level Low'], {
    annotationsRiskLevel: 'Low',
  });
  // The gate applies to annotations Portico does not implement yet, as ingress-nginx would refuse them.
  assertRefusedWith({ 'server-alias': 'www.example.com' }, ['risk level High', 'annotations-risk-level Medium'], {
    annotationsRiskLevel: 'Medium',
  });
});

test('ssl-passthrough, the last annotation that was not implemented, is parsed without a warning', () => {
  const { value, warnings } = accepted({ 'ssl-passthrough': 'true' });
  assert.deepEqual(value, { ...DEFAULT_ANNOTATIONS, location: { ...DEFAULT_ANNOTATIONS.location, sslPassthrough: true } });
  assert.deepEqual(warnings, []);
});

test("an annotation that needs a module Debian's nginx lacks is ignored with a warning naming the module", () => {
  const { value, warnings } = accepted({ 'enable-opentelemetry': 'true' });
  assert.deepEqual(value, DEFAULT_ANNOTATIONS);
  assert.deepEqual(warnings, [
    `annotation ${PREFIX}/enable-opentelemetry: Debian 12's nginx has no OpenTelemetry module, so Portico cannot apply it; ignored`,
  ]);
});

test('an unknown name is ignored with a warning', () => {
  assert.deepEqual(accepted({ 'rewrite-targt': '/' }).warnings, [
    `annotation ${PREFIX}/rewrite-targt: unknown annotation (ingress-nginx has none by this name), ignored`,
  ]);
});

test('an empty value counts as unset, as in ingress-nginx', () => {
  const { value, warnings } = accepted({ 'proxy-body-size': '  ', 'use-regex': '' }, { proxyBodySize: '2m' });
  assert.equal(value.location.proxy.bodySize, '2m');
  assert.equal(value.location.rewrite.useRegex, false);
  assert.equal(warnings.length, 2);
  assert.ok(warnings.every((warning) => warning.endsWith('empty value, treated as unset')));
});

test('every refusal is reported, in annotation order, and any refusal refuses the whole Ingress', () => {
  const errors = refused({ 'use-regex': 'yes', 'backend-protocol': 'H2C', 'proxy-body-size': '1m', 'enable-cors': 'true' });
  assert.equal(errors.length, 2);
  assert.ok(errors[0]?.startsWith(`annotation ${PREFIX}/backend-protocol: invalid value "H2C"; expected one of`), errors[0]);
  assert.ok(errors[1]?.startsWith(`annotation ${PREFIX}/use-regex: invalid value "yes"; expected`), errors[1]);
});

test('values in messages are truncated and quoted', () => {
  const errors = refused({ 'rewrite-target': `/${'a'.repeat(300)}"` });
  assert.equal(errors.length, 1);
  assert.ok(errors[0]?.includes(`"/${'a'.repeat(63)}..."`), errors[0]);
  assert.ok((errors[0]?.length ?? 0) < 400);
});
