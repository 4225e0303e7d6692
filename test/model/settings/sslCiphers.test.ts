import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { OPENSSL_CIPHER_NAMES, OPENSSL_EMPTY_ALIASES, OPENSSL_SELECTING_ALIASES } from '../../../src/model/settings/opensslCipherWords.js';
import { parseSslCiphers } from '../../../src/model/settings/sslCiphers.js';

/** Whether the local openssl (the library nginx links) selects at least one cipher for `list`. */
function opensslSelects(list: string): boolean {
  try {
    execFileSync('openssl', ['ciphers', list], { stdio: 'pipe' });
    return true;
  } catch {
    return false;
  }
}

test('the cipher names are those of the local openssl, without the TLS 1.3 suites', () => {
  const names = execFileSync('openssl', ['ciphers', 'ALL:COMPLEMENTOFALL'], { encoding: 'utf8' }).trim().split(':');
  assert.deepEqual([...OPENSSL_CIPHER_NAMES].sort(), names.filter((name) => !name.startsWith('TLS_')).sort());
});

test('the aliases that select ciphers do so with the local openssl, the others select none', () => {
  assert.deepEqual(
    OPENSSL_SELECTING_ALIASES.filter((alias) => !opensslSelects(alias)),
    [],
  );
  assert.deepEqual(
    OPENSSL_EMPTY_ALIASES.filter((alias) => opensslSelects(alias)),
    [],
  );
});

test('lists of known words selecting a cipher are accepted', () => {
  for (const list of [
    'HIGH:!aNULL:!MD5',
    'ECDHE+AESGCM:ECDHE+CHACHA20:!RC4',
    'DEFAULT:@SECLEVEL=0',
    'HIGH, MEDIUM',
    'HIGH MEDIUM',
    'HIGH::MEDIUM',
    'AES128-SHA:AES256-SHA:-AES128-SHA:+AES256-SHA:@STRENGTH',
    '!EXPORT:ECDHE-RSA-AES128-GCM-SHA256',
    // An "@" ends a word and starts a command, as in OpenSSL.
    'HIGH@STRENGTH',
    'ECDHE+AESGCM@SECLEVEL=2:AES128-SHA',
  ]) {
    assert.deepEqual(parseSslCiphers(list), { ok: true, value: list }, list);
    assert.ok(opensslSelects(list), `openssl agrees on ${list}`);
  }
});

test('an unknown word, a bad command, or a list selecting nothing is refused', () => {
  const refused: [string, RegExp][] = [
    ['HIGH:FOO', /"FOO" is not a cipher or alias OpenSSL knows/],
    ['HIGH:!aNUL', /"aNUL" is not a cipher or alias/],
    ['high', /"high" is not a cipher or alias/],
    ['HIGH+', /"" is not a cipher or alias/],
    ['TLS_AES_128_GCM_SHA256', /is not a cipher or alias/],
    ['HIGH:@SECLEVEL=9', /"@SECLEVEL=9" is not an OpenSSL command/],
    ['HIGH:@FOO', /"@FOO" is not an OpenSSL command/],
    ['RC4', /selecting at least one cipher/],
    ['!aNULL:-MD5:+HIGH', /selecting at least one cipher/],
    ['', /selecting at least one cipher/],
  ];
  for (const [list, reason] of refused) {
    const parsed = parseSslCiphers(list);
    assert.ok(!parsed.ok && reason.test(parsed.expected), `${list}: ${JSON.stringify(parsed)}`);
  }
  // Where openssl itself fails, nginx -t would.
  for (const list of ['FOO', 'RC4', 'HIGH:@SECLEVEL=9', 'HIGH:@FOO']) assert.equal(opensslSelects(list), false, list);
});
