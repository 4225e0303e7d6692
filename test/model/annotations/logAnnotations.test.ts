import { test } from 'node:test';
import assert from 'node:assert/strict';
import { accepted, assertRefusedWith, PREFIX } from './annotationTestSupport.js';

test('enable-access-log and enable-rewrite-log: nothing at the defaults, set or not', () => {
  assert.equal(accepted({}).value.location.logs, undefined);
  assert.equal(accepted({ 'enable-access-log': 'true', 'enable-rewrite-log': 'false' }).value.location.logs, undefined);
});

test('enable-access-log: "false" and enable-rewrite-log: "true"', () => {
  assert.deepEqual(accepted({ 'enable-access-log': 'false' }).value.location.logs, { accessLog: false, rewriteLog: false });
  assert.deepEqual(accepted({ 'enable-rewrite-log': 'true' }).value.location.logs, { accessLog: true, rewriteLog: true });
  assert.deepEqual(accepted({ 'enable-access-log': 'False', 'enable-rewrite-log': 'TRUE' }).value.location.logs, {
    accessLog: false,
    rewriteLog: true,
  });
});

test('anything but a boolean is refused, hostile values included', () => {
  for (const name of ['enable-access-log', 'enable-rewrite-log']) {
    for (const value of ['off', 'no', '0x', 'false; access_log /etc/passwd', 'true"', '${dollar}']) {
      assertRefusedWith({ [name]: value }, [`${PREFIX}/${name}`, 'invalid value']);
    }
  }
});
