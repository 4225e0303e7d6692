import assert from 'node:assert/strict';
import { test } from 'node:test';
import { accepted, assertRefusedWith } from './annotationTestSupport.js';

test('http2-push-preload "true" turns push preload on; "false" and unset leave nginx default', () => {
  assert.equal(accepted({ 'http2-push-preload': 'true' }).value.location.http2PushPreload, true);
  for (const annotations of [{ 'http2-push-preload': 'false' }, {}] as Array<Record<string, string>>) {
    assert.equal('http2PushPreload' in accepted(annotations).value.location, false);
  }
  assert.deepEqual(accepted({ 'http2-push-preload': 'true' }).warnings, []);
});

test('http2-push-preload takes only a boolean', () => {
  for (const value of ['yes', 'on', '1x', 'true;', 'true }']) assertRefusedWith({ 'http2-push-preload': value }, ['http2-push-preload']);
});
