import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KNOWN_ANNOTATIONS } from '../../../src/model/annotations/annotationRegistry.js';
import { INGRESS_NGINX_ANNOTATION_SECTIONS } from '../../../src/model/annotations/ingressNginxAnnotations.js';
import { loadChecklist } from '../../support/compatibilityChecklist.js';

test('the registry knows all of ingress-nginx v1.15: 136 names, 2 deprecated aliases and session-cookie-partitioned', () => {
  assert.equal(KNOWN_ANNOTATIONS.size, 139);
  const perRisk = new Map<string, number>();
  for (const { risk } of KNOWN_ANNOTATIONS.values()) perRisk.set(risk, (perRisk.get(risk) ?? 0) + 1);
  // annotations-risk.md counts (5 Critical, 10 High, 45 Medium, 76 Low), the aliases (one Medium, one Low)
  // and session-cookie-partitioned (Low).
  assert.deepEqual(Object.fromEntries(perRisk), { Critical: 5, High: 10, Medium: 46, Low: 78 });
});

test('the registry holds exactly the names of ingress-nginx annotations, each in one section', () => {
  const listed = Object.values(INGRESS_NGINX_ANNOTATION_SECTIONS).flat();
  assert.equal(new Set(listed).size, listed.length, 'a name listed in two sections');
  assert.deepEqual([...KNOWN_ANNOTATIONS.keys()].sort(), listed.sort());
});

const { checklist, skip } = loadChecklist();

test("the annotation sections are the compatibility checklist's", { skip }, () => {
  assert.deepEqual(INGRESS_NGINX_ANNOTATION_SECTIONS, checklist?.annotationSections);
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
    'proxy-buffer-size': 'Low',
    'proxy-buffers-number': 'Low',
    'proxy-busy-buffers-size': 'Low',
    'proxy-max-temp-file-size': 'Low',
    'proxy-request-buffering': 'Low',
    'proxy-http-version': 'Low',
    'client-body-buffer-size': 'Low',
    'proxy-next-upstream': 'Medium',
    'proxy-next-upstream-timeout': 'Low',
    'proxy-next-upstream-tries': 'Low',
    'service-upstream': 'Low',
    'proxy-ssl-secret': 'Medium',
    'proxy-ssl-verify': 'Low',
    'proxy-ssl-verify-depth': 'Low',
    'proxy-ssl-name': 'High',
    'proxy-ssl-server-name': 'Low',
    'proxy-ssl-ciphers': 'Medium',
    'proxy-ssl-protocols': 'Low',
    'allowlist-source-range': 'Medium',
    'whitelist-source-range': 'Medium',
    'denylist-source-range': 'Medium',
    'auth-tls-secret': 'Medium',
    'auth-tls-verify-client': 'Medium',
    'auth-tls-verify-depth': 'Low',
    'auth-tls-error-page': 'High',
    'auth-tls-pass-certificate-to-upstream': 'Low',
    'auth-tls-match-cn': 'High',
    'limit-connections': 'Low',
    'limit-rps': 'Low',
    'limit-rpm': 'Low',
    'limit-burst-multiplier': 'Low',
    'limit-allowlist': 'Low',
    'limit-whitelist': 'Low',
    'limit-rate': 'Low',
    'limit-rate-after': 'Low',
    'auth-type': 'Low',
    'auth-secret': 'Medium',
    'auth-secret-type': 'Low',
    'auth-realm': 'Medium',
    satisfy: 'Low',
    'custom-http-errors': 'Low',
    'disable-proxy-intercept-errors': 'Low',
    'default-backend': 'Low',
    'fastcgi-index': 'Medium',
    'fastcgi-params-configmap': 'Medium',
    'http2-push-preload': 'Low',
    'ssl-ciphers': 'Low',
    'ssl-prefer-server-ciphers': 'Low',
    'enable-access-log': 'Low',
    'enable-rewrite-log': 'Low',
    'server-alias': 'High',
    'from-to-www-redirect': 'Low',
    'mirror-target': 'High',
    'mirror-host': 'High',
    'mirror-request-body': 'Low',
    'ssl-passthrough': 'Low',
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
    'session-cookie-partitioned': 'Low',
    canary: 'Low',
    'canary-weight': 'Low',
    'canary-weight-total': 'Low',
    'canary-by-header': 'Medium',
    'canary-by-header-value': 'Medium',
    'canary-by-header-pattern': 'Medium',
    'canary-by-cookie': 'Medium',
    'enable-modsecurity': 'Low',
    'enable-owasp-core-rules': 'Low',
    'modsecurity-transaction-id': 'High',
    'auth-url': 'High',
    'enable-global-auth': 'Low',
    'auth-method': 'Low',
    'auth-signin': 'High',
    'auth-signin-redirect-param': 'Medium',
    'auth-response-headers': 'Medium',
    'auth-proxy-set-headers': 'Medium',
    'auth-request-redirect': 'Medium',
    'auth-cache-key': 'Medium',
    'auth-cache-duration': 'Medium',
    'auth-always-set-cookie': 'Low',
    'auth-keepalive': 'Low',
    'auth-keepalive-requests': 'Low',
    'auth-keepalive-timeout': 'Low',
    'auth-keepalive-share-vars': 'Low',
    'custom-headers': 'Medium',
    'connection-proxy-header': 'Low',
    'upstream-vhost': 'Low',
    'x-forwarded-prefix': 'Medium',
    'proxy-cookie-domain': 'Medium',
    'proxy-cookie-path': 'Medium',
    'proxy-redirect-from': 'Medium',
    'proxy-redirect-to': 'Medium',
    'enable-cors': 'Low',
    'cors-allow-origin': 'Medium',
    'cors-allow-methods': 'Medium',
    'cors-allow-headers': 'Medium',
    'cors-expose-headers': 'Medium',
    'cors-allow-credentials': 'Low',
    'cors-max-age': 'Low',
    'app-root': 'Medium',
    'permanent-redirect': 'Medium',
    'permanent-redirect-code': 'Low',
    'temporal-redirect': 'Medium',
    'temporal-redirect-code': 'Low',
    'relative-redirects': 'Low',
    'preserve-trailing-slash': 'Medium',
    'use-port-in-redirects': 'Low',
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

test("the OpenTelemetry annotations need a module Debian's nginx lacks", () => {
  const needingModule = [...KNOWN_ANNOTATIONS].filter(([, known]) => known.kind === 'unimplemented' && known.missingModule !== undefined);
  assert.deepEqual(needingModule.map(([name]) => name).sort(), [
    'enable-opentelemetry',
    'opentelemetry-operation-name',
    'opentelemetry-trust-incoming-span',
  ]);
});
