// The TLS keys' parsers, one by one and through parseGlobalSettings: valid
// values, values nginx would refuse, and hostile ones (which must keep the default).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import {
  parseDhParamSecret,
  parseEcdhCurve,
  parseSessionCacheSize,
  parseSessionTicketKey,
  parseSessionTimeout,
  parseSslBufferSize,
  TLS_DEFAULTS,
} from '../../../src/model/settings/keys/tlsSettings.js';
import { DEFAULT_SETTINGS } from '../../../src/model/settings/globalSettings.js';
import { parseGlobalSettings } from '../../../src/model/settings/parseGlobalSettings.js';
import type { ValueParser } from '../../../src/model/settings/valueSyntax.js';

const ENVIRONMENT = { cpus: 2 };

function accepts<T>(parse: ValueParser<T>, text: string, value: T): void {
  assert.deepEqual(parse(text), { ok: true, value }, text);
}

function refuses<T>(parse: ValueParser<T>, text: string): void {
  assert.equal(parse(text).ok, false, text);
}

const HOSTILE = ['10m; include /etc/passwd', '10m\n', '"10m"', '${x}', '10m }', '10m#'];

test("ingress-nginx's defaults (config.go NewDefault)", () => {
  assert.deepEqual(TLS_DEFAULTS, {
    sslSessionCache: true,
    sslSessionCacheSize: '10m',
    sslSessionTimeout: '10m',
    sslSessionTickets: false,
    sslSessionTicketKey: undefined,
    sslDhParam: undefined,
    sslEcdhCurve: 'auto',
    sslBufferSize: '4k',
    sslEarlyData: false,
    sslRejectHandshake: false,
  });
  for (const [field, value] of Object.entries(TLS_DEFAULTS)) assert.deepEqual(DEFAULT_SETTINGS[field as keyof typeof TLS_DEFAULTS], value);
});

test('ssl-session-cache-size: 32k (nginx: "too small" below 8 pages) to 1024m, no g (nginx: "invalid session cache")', () => {
  for (const text of ['32k', '10m', '1024m', '32768', '100M']) accepts(parseSessionCacheSize, text, text);
  for (const text of ['31k', '0', '1025m', '1g', '1G', '10 m', '-1m', '', ...HOSTILE]) refuses(parseSessionCacheSize, text);
});

test('ssl-buffer-size: 512 to 16k', () => {
  for (const text of ['512', '4k', '16k', '8K']) accepts(parseSslBufferSize, text, text);
  for (const text of ['511', '0', '17k', '1m', '4kb', '', ...HOSTILE]) refuses(parseSslBufferSize, text);
});

test('ssl-session-timeout: seconds units only (nginx refuses ms there), at most 24d', () => {
  for (const text of ['10m', '1h', '300', '300s', '1d', '0', '24d']) accepts(parseSessionTimeout, text, text);
  for (const text of ['500ms', '25d', '1M', '1y', '1h30m', '', ...HOSTILE]) refuses(parseSessionTimeout, text);
});

test('ssl-session-ticket-key: base64 of 48 or 80 bytes, strictly padded', () => {
  for (const bytes of [48, 80]) {
    const key = randomBytes(bytes).toString('base64');
    accepts(parseSessionTicketKey, key, key);
  }
  accepts(parseSessionTicketKey, '', undefined);
  const eighty = randomBytes(80).toString('base64');
  for (const text of [
    randomBytes(32).toString('base64'),
    randomBytes(81).toString('base64'),
    eighty.replace(/=+$/, ''),
    `${eighty.slice(0, 20)} ${eighty.slice(20)}`,
    Buffer.alloc(48, 0xfb).toString('base64url'),
    `${eighty};`,
    ...HOSTILE,
  ]) {
    refuses(parseSessionTicketKey, text);
  }
});

test('ssl-dh-param: a Secret as namespace/name', () => {
  accepts(parseDhParamSecret, 'ingress/dhparam', 'ingress/dhparam');
  accepts(parseDhParamSecret, '', undefined);
  for (const text of ['dhparam', 'a/b/c', '../x', 'Ingress/DH', '/dhparam', 'ns/', ...HOSTILE]) refuses(parseDhParamSecret, text);
});

test('ssl-ecdh-curve: auto, or distinct OpenSSL group names as OpenSSL spells them', () => {
  for (const text of ['auto', 'X25519', 'X25519:P-256:P-384', 'prime256v1', 'secp384r1:ffdhe2048']) accepts(parseEcdhCurve, text, text);
  // One group by two of its names: OpenSSL refuses the list.
  for (const text of ['P-256:prime256v1', 'secp256r1:P-256', 'P-384:secp384r1']) refuses(parseEcdhCurve, text);
  for (const text of ['p-256', 'bogus', 'X25519:', ':X25519', 'X25519:X25519', 'X25519,P-256', 'X25519 P-256', 'AUTO', '', ...HOSTILE]) {
    refuses(parseEcdhCurve, text);
  }
});

test('parseGlobalSettings reads the TLS keys, and a bad value keeps its default and is reported', () => {
  const key = randomBytes(80).toString('base64');
  const { settings, problems, unknownKeys } = parseGlobalSettings(
    {
      'ssl-session-cache': 'false',
      'ssl-session-cache-size': '20m',
      'ssl-session-timeout': '1h',
      'ssl-session-tickets': 'true',
      'ssl-session-ticket-key': key,
      'ssl-dh-param': 'ingress/dhparam',
      'ssl-ecdh-curve': 'X25519:P-256',
      'ssl-buffer-size': '16k',
      'ssl-early-data': 'true',
      'ssl-reject-handshake': 'true',
    },
    ENVIRONMENT,
  );
  assert.deepEqual(problems, []);
  assert.deepEqual(unknownKeys, []);
  assert.deepEqual(
    {
      sslSessionCache: settings.sslSessionCache,
      sslSessionCacheSize: settings.sslSessionCacheSize,
      sslSessionTimeout: settings.sslSessionTimeout,
      sslSessionTickets: settings.sslSessionTickets,
      sslSessionTicketKey: settings.sslSessionTicketKey,
      sslDhParam: settings.sslDhParam,
      sslEcdhCurve: settings.sslEcdhCurve,
      sslBufferSize: settings.sslBufferSize,
      sslEarlyData: settings.sslEarlyData,
      sslRejectHandshake: settings.sslRejectHandshake,
    },
    {
      sslSessionCache: false,
      sslSessionCacheSize: '20m',
      sslSessionTimeout: '1h',
      sslSessionTickets: true,
      sslSessionTicketKey: key,
      sslDhParam: 'ingress/dhparam',
      sslEcdhCurve: 'X25519:P-256',
      sslBufferSize: '16k',
      sslEarlyData: true,
      sslRejectHandshake: true,
    },
  );

  const bad = parseGlobalSettings(
    {
      'ssl-ecdh-curve': 'X25519;\nssl_ciphers NULL',
      'ssl-session-ticket-key': 'c2hvcnQ=',
      'ssl-buffer-size': '1m',
      'ssl-early-data': 'yes',
    },
    ENVIRONMENT,
  );
  assert.equal(bad.problems.length, 4, bad.problems.join('\n'));
  assert.equal(bad.settings.sslEcdhCurve, 'auto');
  assert.equal(bad.settings.sslSessionTicketKey, undefined);
  assert.equal(bad.settings.sslBufferSize, '4k');
  assert.equal(bad.settings.sslEarlyData, false);
  // A problem names the key, never echoes a control character.
  assert.ok(bad.problems.some((problem) => problem.startsWith('ConfigMap key ssl-ecdh-curve:') && !problem.includes('\n')));
});
