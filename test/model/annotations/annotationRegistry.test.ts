import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KNOWN_ANNOTATIONS } from '../../../src/model/annotations/annotationRegistry.js';

test('the registry knows all of ingress-nginx v1.15: 136 names plus 2 deprecated aliases', () => {
  assert.equal(KNOWN_ANNOTATIONS.size, 138);
  const perRisk = new Map<string, number>();
  for (const { risk } of KNOWN_ANNOTATIONS.values()) perRisk.set(risk, (perRisk.get(risk) ?? 0) + 1);
  // annotations-risk.md counts (5 Critical, 10 High, 45 Medium, 76 Low) plus the aliases (one Medium, one Low).
  assert.deepEqual(Object.fromEntries(perRisk), { Critical: 5, High: 10, Medium: 46, Low: 77 });
});

test('implemented annotations carry ingress-nginx risk levels', () => {
  const implemented = Object.fromEntries(
    [...KNOWN_ANNOTATIONS].filter(([, known]) => known.kind === 'implemented').map(([name, known]) => [name, known.risk]),
  );
  assert.deepEqual(implemented, {
    'rewrite-target': 'Medium',
    'use-regex': 'Low',
    'ssl-redirect': 'Low',
    'force-ssl-redirect': 'Medium',
    'backend-protocol': 'Low',
    'proxy-body-size': 'Medium',
    'proxy-buffering': 'Low',
    'proxy-connect-timeout': 'Low',
    'proxy-read-timeout': 'Low',
    'proxy-send-timeout': 'Low',
    'allowlist-source-range': 'Medium',
    'whitelist-source-range': 'Medium',
    'denylist-source-range': 'Medium',
    'auth-type': 'Low',
    'auth-secret': 'Medium',
    'auth-secret-type': 'Low',
    'auth-realm': 'Medium',
    satisfy: 'Low',
    'load-balance': 'Low',
    'upstream-hash-by': 'High',
    'upstream-hash-by-subset': 'Low',
    'upstream-hash-by-subset-size': 'Low',
    affinity: 'Low',
    'affinity-mode': 'Medium',
    'affinity-canary-behavior': 'Low',
    'session-cookie-name': 'Medium',
    'session-cookie-path': 'Medium',
    'session-cookie-domain': 'Medium',
    'session-cookie-max-age': 'Medium',
    'session-cookie-expires': 'Medium',
    'session-cookie-secure': 'Low',
    'session-cookie-samesite': 'Low',
    'session-cookie-conditional-samesite-none': 'Low',
    'session-cookie-change-on-failure': 'Low',
    canary: 'Low',
    'canary-weight': 'Low',
    'canary-weight-total': 'Low',
    'canary-by-header': 'Medium',
    'canary-by-header-value': 'Medium',
    'canary-by-header-pattern': 'Medium',
    'canary-by-cookie': 'Medium',
  });
});

test('all five snippet annotations are Critical and gated as snippets', () => {
  const snippets = [...KNOWN_ANNOTATIONS].filter(([, known]) => known.kind === 'snippet');
  assert.deepEqual(snippets.map(([name]) => name).sort(), [
    'auth-snippet',
    'configuration-snippet',
    'modsecurity-snippet',
    'server-snippet',
    'stream-snippet',
  ]);
  assert.ok(snippets.every(([, known]) => known.risk === 'Critical'));
});

test('unimplemented annotations that guard access are marked unsafe to ignore', () => {
  const unsafe = (name: string) => {
    const known = KNOWN_ANNOTATIONS.get(name);
    assert.equal(known?.kind, 'unimplemented', name);
    return known.unsafeToIgnore !== undefined;
  };
  for (const name of ['auth-url', 'auth-tls-secret', 'limit-rps', 'enable-modsecurity', 'proxy-ssl-verify']) {
    assert.equal(unsafe(name), true, name);
  }
  for (const name of [
    'enable-cors',
    'session-cookie-partitioned',
    'server-alias',
    'enable-global-auth',
    'limit-whitelist',
    'proxy-next-upstream',
  ]) {
    assert.equal(unsafe(name), false, name);
  }
});
