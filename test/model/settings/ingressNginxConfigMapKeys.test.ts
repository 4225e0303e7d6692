import { test } from 'node:test';
import assert from 'node:assert/strict';
import { INGRESS_NGINX_CONFIGMAP_KEYS, classifyIgnoredKey } from '../../../src/model/settings/ingressNginxConfigMapKeys.js';
import { FIELD_BY_KEY } from '../../../src/model/settings/parseGlobalSettings.js';
import { loadChecklist } from '../../support/compatibilityChecklist.js';

const keys = INGRESS_NGINX_CONFIGMAP_KEYS.map(({ key }) => key);

test("configmap.md's 192 keys and the six config.go reads that it does not document, each once", () => {
  assert.equal(keys.length, 198);
  assert.equal(new Set(keys).size, keys.length);
});

test('every key Portico implements is an ingress-nginx key', () => {
  assert.deepEqual(
    [...FIELD_BY_KEY.keys()].filter((key) => !keys.includes(key)),
    [],
  );
});

const { checklist, skip } = loadChecklist();

test("the compatibility checklist's keys, the two configmap.md documents that it leaves out, and the undocumented ones", { skip }, () => {
  assert.deepEqual(
    keys.filter((key) => !checklist?.configMapKeys.includes(key)),
    [
      'server-name-hash-bucket-size',
      'ssl-session-ticket-key',
      'ssl-early-data',
      'global-auth-always-set-cookie',
      'proxy-max-temp-file-size',
      'proxy-http-version',
      'proxy-redirect-to',
      'disable-stream-access-log',
    ],
  );
  assert.deepEqual(
    checklist?.configMapKeys.filter((key) => !keys.includes(key)),
    [],
  );
});

test('classifyIgnoredKey: not an ingress-nginx key, a missing module, refused on purpose, or not done yet', () => {
  assert.deepEqual(classifyIgnoredKey('not-a-key'), { kind: 'unknown', reason: 'not a ConfigMap key of ingress-nginx v1.15.1; ignored' });
  assert.deepEqual(classifyIgnoredKey('otel-sampler'), {
    kind: 'missing-module',
    reason: "Debian 12's nginx has no OpenTelemetry module, so Portico cannot apply it; ignored",
  });
  assert.equal(classifyIgnoredKey('http2-max-requests').kind, 'refused');
  assert.match(classifyIgnoredKey('http2-max-requests').reason, /keep-alive-requests/);
});
