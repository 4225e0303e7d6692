import { test } from 'node:test';
import assert from 'node:assert/strict';
import { accepted, assertRefusedWith } from './annotationTestSupport.js';

test('backend-protocol defaults to HTTP', () => {
  assert.equal(accepted({}).value.location.backendProtocol, 'HTTP');
});

test('backend-protocol is case-insensitive and normalised to upper case', () => {
  const cases = [
    ['HTTP', 'HTTP'],
    ['https', 'HTTPS'],
    ['gRPC', 'GRPC'],
    ['grpcs', 'GRPCS'],
    [' HTTPS ', 'HTTPS'],
    ['fcgi', 'FCGI'],
    ['auto_http', 'AUTO_HTTP'],
  ] as const;
  for (const [text, protocol] of cases) {
    assert.equal(accepted({ 'backend-protocol': text }).value.location.backendProtocol, protocol, text);
  }
});

test("backend-protocol refuses protocols outside ingress-nginx's list", () => {
  for (const text of ['h2c', 'HTTP;', 'HTTPS2', 'FCGI2', 'AUTO']) {
    assertRefusedWith({ 'backend-protocol': text }, ['backend-protocol', 'one of HTTP, HTTPS, GRPC, GRPCS, FCGI, AUTO_HTTP']);
  }
});

test('backend-protocol is Low risk: admitted at every level', () => {
  assert.equal(accepted({ 'backend-protocol': 'GRPC' }, { annotationsRiskLevel: 'Low' }).value.location.backendProtocol, 'GRPC');
});
