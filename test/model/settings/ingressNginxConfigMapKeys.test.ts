import { test } from 'node:test';
import assert from 'node:assert/strict';
import { INGRESS_NGINX_CONFIGMAP_KEYS } from '../../../src/model/settings/ingressNginxConfigMapKeys.js';
import { FIELD_BY_KEY } from '../../../src/model/settings/parseGlobalSettings.js';
import { loadChecklist } from '../../support/compatibilityChecklist.js';

const keys = INGRESS_NGINX_CONFIGMAP_KEYS.map(({ key }) => key);

test("configmap.md's 192 keys and the four config.go reads that it does not document, each once", () => {
  assert.equal(keys.length, 196);
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
      'global-auth-always-set-cookie',
      'proxy-max-temp-file-size',
      'proxy-http-version',
      'proxy-redirect-to',
    ],
  );
  assert.deepEqual(
    checklist?.configMapKeys.filter((key) => !keys.includes(key)),
    [],
  );
});
