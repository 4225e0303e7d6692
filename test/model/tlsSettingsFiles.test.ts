// ssl-dh-param and ssl-session-ticket-key as SecretFiles: the Secret's
// dhparam.pem checked as PKCS#3 DH parameters OpenSSL accepts, re-encoded;
// anything else leaves ssl_dhparam out with a warning. And the store passes a
// change of the Secret the ConfigMap names on to the model.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { before, test } from 'node:test';
import type { ConfigMap, Secret } from '../../src/kube/objects.js';
import { SecretFileSet } from '../../src/model/secretFiles.js';
import { parseDhParameters, tlsSettingsFiles } from '../../src/model/tlsSettingsFiles.js';
import { ChangeFeed } from '../../src/store/changeFeed.js';
import { Store } from '../../src/store/store.js';
import { TEST_STORE_SETTINGS } from '../support/watchCluster.js';

const run = promisify(execFile);

let ffdhe2048 = '';
let ffdhe4096 = '';
let certificatePem = '';

before(async () => {
  const group = async (name: string) =>
    (await run('openssl', ['genpkey', '-genparam', '-algorithm', 'DH', '-pkeyopt', `group:${name}`], { timeout: 30_000 })).stdout;
  [ffdhe2048, ffdhe4096] = await Promise.all([group('ffdhe2048'), group('ffdhe4096')]);
  certificatePem = (
    await run(
      'openssl',
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', '/dev/null', '-subj', '/CN=x'],
      {
        timeout: 30_000,
      },
    )
  ).stdout;
});

const b64 = (text: string): string => Buffer.from(text).toString('base64');
const secret = (data: Record<string, string>): Secret => ({ metadata: { namespace: 'ingress', name: 'dh' }, data });

function files(settings: { sslDhParam?: string; sslSessionTicketKey?: string }, secrets: Record<string, Secret> = {}) {
  const set = new SecretFileSet();
  const warnings: string[] = [];
  const result = tlsSettingsFiles(
    { sslDhParam: settings.sslDhParam, sslSessionTicketKey: settings.sslSessionTicketKey },
    { secret: (key) => secrets[key] },
    set,
    warnings,
  );
  return { result, list: set.list(), warnings };
}

test('nothing set: no files', () => {
  assert.deepEqual(files({}), { result: { dhParam: undefined, sessionTicketKey: undefined }, list: [], warnings: [] });
});

test("ssl-dh-param: the Secret's dhparam.pem, re-encoded, as a SecretFile named by the Secret", () => {
  const withNoise = `garbage before\n${ffdhe2048.replace(/\n/g, '\r\n')}trailing text\n`;
  const { result, list, warnings } = files({ sslDhParam: 'ingress/dh' }, { 'ingress/dh': secret({ 'dhparam.pem': b64(withNoise) }) });
  assert.deepEqual(warnings, []);
  assert.match(result.dhParam ?? '', /^ingress-dh-dhparam-[0-9a-f]{16}\.pem$/);
  assert.equal(list.length, 1);
  assert.equal(list[0]?.id, result.dhParam);
  assert.equal(list[0]?.contents, ffdhe2048);
  assert.equal(list[0]?.encoding, undefined);
  assert.ok(!('problem' in parseDhParameters(ffdhe4096)));
});

test('ssl-dh-param that cannot be used: a warning naming the Secret, and no file', () => {
  const cases: Array<[string, Record<string, Secret>, RegExp]> = [
    ['missing Secret', {}, /does not exist/],
    ['no dhparam.pem', { 'ingress/dh': secret({ 'tls.crt': b64(ffdhe2048) }) }, /has no dhparam\.pem/],
    ['not PEM', { 'ingress/dh': secret({ 'dhparam.pem': b64('hello') }) }, /no PEM block/],
    ['a certificate', { 'ingress/dh': secret({ 'dhparam.pem': b64(certificatePem) }) }, /CERTIFICATE, not DH PARAMETERS/],
    [
      'not DER',
      { 'ingress/dh': secret({ 'dhparam.pem': b64('-----BEGIN DH PARAMETERS-----\nAAAA\n-----END DH PARAMETERS-----\n') }) },
      /not PKCS#3/,
    ],
  ];
  for (const [name, secrets, message] of cases) {
    const { result, list, warnings } = files({ sslDhParam: 'ingress/dh' }, secrets);
    assert.equal(result.dhParam, undefined, name);
    assert.deepEqual(list, [], name);
    assert.equal(warnings.length, 1, name);
    assert.match(warnings[0] ?? '', /^ConfigMap key ssl-dh-param: Secret ingress\/dh: /, name);
    assert.match(warnings[0] ?? '', message, name);
  }
});

test('DH parameters: a prime of 2048 to 10000 bits (nginx refuses 1024: "dh key too small"), a generator in range', () => {
  const pem = (der: Buffer) => `-----BEGIN DH PARAMETERS-----\n${der.toString('base64')}\n-----END DH PARAMETERS-----\n`;
  const integer = (value: bigint): Buffer => {
    let hex = value.toString(16);
    if (hex.length % 2) hex = `0${hex}`;
    if (parseInt(hex.slice(0, 2), 16) & 0x80) hex = `00${hex}`;
    return derElement(0x02, Buffer.from(hex, 'hex'));
  };
  const params = (p: bigint, g: bigint) => pem(derElement(0x30, Buffer.concat([integer(p), integer(g)])));
  const prime1024 = (1n << 1023n) + 1n;
  const prime2048 = (1n << 2047n) + 1n;
  assert.match(JSON.stringify(parseDhParameters(params(prime1024, 2n))), /1024-bit prime/);
  assert.ok(!('problem' in parseDhParameters(params(prime2048, 2n))));
  assert.match(JSON.stringify(parseDhParameters(params((1n << 10000n) + 1n, 2n))), /10001-bit prime/);
  assert.match(JSON.stringify(parseDhParameters(params(prime2048, 1n))), /out of range/);
  assert.match(JSON.stringify(parseDhParameters(params(prime2048 + 1n, 2n))), /out of range/);
  // Trailing bytes after the SEQUENCE, or a negative integer: not DER DH parameters.
  const good = derElement(0x30, Buffer.concat([integer(prime2048), integer(2n)]));
  assert.match(JSON.stringify(parseDhParameters(pem(Buffer.concat([good, Buffer.from([0])])))), /not PKCS#3/);
  assert.match(JSON.stringify(parseDhParameters(pem(derElement(0x30, derElement(0x02, Buffer.from([0x80, 1])))))), /not PKCS#3/);
});

function derElement(tag: number, content: Buffer): Buffer {
  const length = content.length;
  const header =
    length < 0x80
      ? Buffer.from([tag, length])
      : length < 0x100
        ? Buffer.from([tag, 0x81, length])
        : Buffer.from([tag, 0x82, length >> 8, length & 0xff]);
  return Buffer.concat([header, content]);
}

test('ssl-session-ticket-key: the decoded bytes, as a binary SecretFile', () => {
  const key = randomBytes(80);
  const { result, list, warnings } = files({ sslSessionTicketKey: key.toString('base64') });
  assert.deepEqual(warnings, []);
  assert.match(result.sessionTicketKey ?? '', /^configmap-ssl-session-ticket-key-[0-9a-f]{16}\.key$/);
  assert.equal(list.length, 1);
  assert.equal(list[0]?.encoding, 'base64');
  assert.deepEqual(Buffer.from(list[0]?.contents ?? '', 'base64'), key);
});

test('the store passes on a change of the Secret the ConfigMap names in ssl-dh-param, and not of others', async () => {
  const store = new Store({ ...TEST_STORE_SETTINGS, configMaps: ['ingress/settings'] }, new ChangeFeed({ quietMs: 0, maxDelayMs: 0 }));
  const dh = (version: string, name = 'dh'): Secret => ({ metadata: { namespace: 'ingress', name, resourceVersion: version }, data: {} });
  const settings = (value: string): ConfigMap => ({
    metadata: { namespace: 'ingress', name: 'settings', resourceVersion: value },
    data: { 'ssl-dh-param': value },
  });
  store.sink('Secret').upsert(dh('1'));
  store.sink('ConfigMap').upsert(settings('ingress/dh'));
  assert.deepEqual([...(await store.changes.next())], ['ConfigMap/ingress/settings']);
  store.sink('Secret').upsert(dh('2', 'other'));
  store.sink('Secret').upsert(dh('3'));
  assert.deepEqual([...(await store.changes.next())], ['Secret/ingress/dh']);
  // Named no longer: its changes stay out of the feed.
  store.sink('ConfigMap').upsert(settings('ingress/other'));
  store.sink('Secret').upsert(dh('4'));
  assert.deepEqual([...(await store.changes.next())], ['ConfigMap/ingress/settings']);
});
