import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { accepted, assertRefusedWith, PREFIX } from './annotationTestSupport.js';

/** Whether the local openssl (the library nginx links) accepts `list` as a cipher list. */
function opensslAccepts(list: string): boolean {
  try {
    execFileSync('openssl', ['ciphers', list], { stdio: 'pipe' });
    return true;
  } catch {
    return false;
  }
}

test('ssl-ciphers and ssl-prefer-server-ciphers: unset by default', () => {
  assert.equal(accepted({}).value.location.tlsCiphers, undefined);
});

test('cipher lists ingress-nginx accepts and OpenSSL accepts are kept as written', () => {
  for (const list of [
    'HIGH:!aNULL:!MD5',
    'ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES256-GCM-SHA384',
    'ECDHE+AESGCM:!RC4:-MD5:+AES256',
    'DEFAULT@SECLEVEL=0',
    'AES128-SHA:@STRENGTH',
    'HIGH@STRENGTH@SECLEVEL=1',
  ]) {
    const { value, warnings } = accepted({ 'ssl-ciphers': list });
    assert.deepEqual(value.location.tlsCiphers, { ciphers: { list, unknownWords: [] }, preferServerCiphers: undefined }, list);
    assert.deepEqual(warnings, [], list);
    assert.ok(opensslAccepts(list), `openssl agrees on ${list}`);
  }
});

// test/e2e/annotations/sslciphers.go's values: OpenSSL 3.0 no longer knows some of their words and skips them.
test("ingress-nginx's e2e lists are accepted, with a warning naming the words OpenSSL skips", () => {
  for (const list of [
    'ALL:!aNULL:!EXPORT56:RC4+RSA:+HIGH:+MEDIUM:+LOW:+SSLv2:+EXP',
    'ALL:!aNULL:!EXPORT56:RC4+RSA@STRENGTH:+HIGH@SECLEVEL=0:+MEDIUM:+LOW:+SSLv2:+EXP',
  ]) {
    const { value, warnings } = accepted({ 'ssl-ciphers': list, 'ssl-prefer-server-ciphers': 'false' });
    assert.deepEqual(value.location.tlsCiphers, { ciphers: { list, unknownWords: ['EXPORT56', 'SSLv2'] }, preferServerCiphers: false });
    assert.deepEqual(warnings, [
      `annotation ${PREFIX}/ssl-ciphers: OpenSSL does not know "EXPORT56", "SSLv2" and skips them; the rest of the list applies`,
    ]);
    assert.ok(opensslAccepts(list), `openssl agrees on ${list}`);
  }
});

test('ssl-prefer-server-ciphers alone: a boolean', () => {
  assert.deepEqual(accepted({ 'ssl-prefer-server-ciphers': 'true' }).value.location.tlsCiphers, {
    ciphers: undefined,
    preferServerCiphers: true,
  });
  for (const value of ['on', 'yes', 'true;']) {
    assertRefusedWith({ 'ssl-prefer-server-ciphers': value }, [`${PREFIX}/ssl-prefer-server-ciphers`, 'invalid value']);
  }
});

test("lists outside ingress-nginx's pattern are refused", () => {
  // Separators and characters OpenSSL takes but ingress-nginx's validator does not.
  for (const list of ['HIGH MEDIUM', 'HIGH,MEDIUM', 'HIGH;MEDIUM', 'AES128-SHA.x', '@SECLEVEL=9', 'HIGH:@FOO', 'HIGH=1']) {
    assertRefusedWith({ 'ssl-ciphers': list }, [`${PREFIX}/ssl-ciphers`, 'OpenSSL cipher list'], {});
  }
});

test('lists OpenSSL would refuse (nginx could not load them) are refused', () => {
  const refusals: Array<[string, string]> = [
    ['FOO', 'selecting at least one cipher'],
    ['RC4:EXPORT', 'selecting at least one cipher'],
    ['!aNULL:-MD5:+HIGH', 'selecting at least one cipher'],
    ['HIGH+', 'is not a cipher or alias'],
    ['HIGH:!', 'is not a cipher or alias'],
    ['HIGH:@STRENGTHX', 'is not an OpenSSL command'],
  ];
  for (const [list, reason] of refusals) {
    assertRefusedWith({ 'ssl-ciphers': list }, [`${PREFIX}/ssl-ciphers`, reason]);
    assert.equal(opensslAccepts(list), false, `openssl refuses ${list} too`);
  }
});

test('hostile values never pass: nginx syntax, quotes, variables, Lua, newlines', () => {
  for (const list of [
    'HIGH; ssl_ciphers NULL',
    'HIGH"',
    "HIGH'",
    'HIGH:$host',
    'HIGH}',
    'HIGH\\',
    'HIGH:${dollar}',
    'HIGH#comment',
    'HIGH{',
    'HIGH:`id`',
  ]) {
    assertRefusedWith({ 'ssl-ciphers': list }, [`${PREFIX}/ssl-ciphers`]);
  }
  // Control characters are refused before any validator.
  assertRefusedWith({ 'ssl-ciphers': 'HIGH\nssl_ciphers NULL' }, [`${PREFIX}/ssl-ciphers`, 'control character']);
});

test("ingress-nginx's pattern runs in linear time on a long near-miss", () => {
  const started = process.hrtime.bigint();
  assertRefusedWith({ 'ssl-ciphers': `${'A'.repeat(50_000)}@STRENGT` }, [`${PREFIX}/ssl-ciphers`]);
  assert.ok(Number(process.hrtime.bigint() - started) / 1e6 < 1000);
});
