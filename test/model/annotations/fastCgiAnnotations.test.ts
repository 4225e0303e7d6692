import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseFastCgiIndex, parseFastCgiParamName, parseFastCgiParamValue } from '../../../src/model/annotations/fastCgiAnnotations.js';
import { accepted, assertRefusedWith } from './annotationTestSupport.js';

test('backend-protocol FCGI (any case) with fastcgi-index and fastcgi-params-configmap', () => {
  const { value, warnings } = accepted({
    'backend-protocol': 'fcgi',
    'fastcgi-index': 'index.php',
    'fastcgi-params-configmap': 'ns/params',
  });
  assert.deepEqual(warnings, []);
  assert.equal(value.location.backendProtocol, 'FCGI');
  assert.deepEqual(value.location.fastCgi, {
    index: 'index.php',
    paramsFrom: { namespace: 'ns', name: 'params' },
    params: [],
    denied: undefined,
  });
});

test('FCGI alone gets nginx standard parameters only; other protocols have no FastCGI part', () => {
  assert.deepEqual(accepted({ 'backend-protocol': 'FCGI' }).value.location.fastCgi, {
    index: undefined,
    paramsFrom: undefined,
    params: [],
    denied: undefined,
  });
  assert.equal(accepted({}).value.location.fastCgi, undefined);
});

test('fastcgi-index and fastcgi-params-configmap without FCGI are ignored with a warning', () => {
  const { value, warnings } = accepted({ 'fastcgi-index': 'index.php', 'fastcgi-params-configmap': 'params' });
  assert.equal(value.location.fastCgi, undefined);
  assert.equal(warnings.length, 2);
  for (const warning of warnings) assert.match(warning, /no effect without backend-protocol: FCGI/);
});

test('invalid and hostile fastcgi-index and fastcgi-params-configmap values refuse the Ingress', () => {
  for (const index of ['index php', 'a;b', '"x"', '$document_root', '../x/y', 'x'.repeat(257), '{a}']) {
    assertRefusedWith({ 'backend-protocol': 'FCGI', 'fastcgi-index': index }, ['fastcgi-index', 'a file name']);
  }
  for (const reference of ['Params', 'a/b/c', 'a;b', '$x', 'a b']) {
    assertRefusedWith({ 'backend-protocol': 'FCGI', 'fastcgi-params-configmap': reference }, ['fastcgi-params-configmap']);
  }
});

test('parameter names and values: ingress-nginx character sets, well-formed references to known variables', () => {
  for (const name of ['SCRIPT_FILENAME', 'a.b-c_d', 'X1']) assert.ok(parseFastCgiParamName(name).ok, name);
  for (const name of ['', 'A B', 'A;', 'A$', 'ä']) assert.ok(!parseFastCgiParamName(name).ok, name);
  for (const value of ['', '200', '/srv/www$fastcgi_script_name', '${document_root}/index.php', '$http_x_custom', '$REQUEST_URI']) {
    assert.ok(parseFastCgiParamValue(value).ok, value);
  }
  for (const value of ['a b', '"x"', 'a;b', '$', '${x', '$unknown_variable', '$1', '${1}', '{x}', 'x'.repeat(2049)]) {
    assert.ok(!parseFastCgiParamValue(value).ok, value);
  }
  assert.ok(parseFastCgiIndex('index.php').ok);
});
