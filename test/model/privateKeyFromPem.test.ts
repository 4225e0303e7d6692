import assert from 'node:assert/strict';
import { createPrivateKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { describe, it } from 'node:test';
import { certificateFromSecret } from '../../src/model/certificates.js';
import { privateKeyFromPem, rsaPkcs1Der } from '../../src/model/privateKeyFromPem.js';
import { selfSignedCertificate } from '../support/tlsSecrets.js';

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
const pkcs8 = (key: KeyObject) => key.export({ format: 'pem', type: 'pkcs8' }).toString();
const pkcs1 = rsa.export({ format: 'pem', type: 'pkcs1' }).toString();

describe('privateKeyFromPem', () => {
  it('unwraps RSA keys in PKCS #8 and PKCS #1 PEM to the same key OpenSSL reads', () => {
    for (const pem of [pkcs8(rsa), pkcs1, `\n\n${pkcs1.replace(/\n/g, '\r\n')}  \n`]) {
      const der = rsaPkcs1Der(pem);
      assert.ok(der, `no fast path for ${pem.slice(0, 40)}`);
      assert.ok(createPrivateKey({ key: der, format: 'der', type: 'pkcs1' }).equals(rsa));
      assert.ok(privateKeyFromPem(pem).equals(rsa));
    }
  });

  it('leaves every other key and text to the general reader, which reads or refuses it', () => {
    const encrypted = rsa.export({ format: 'pem', type: 'pkcs8', cipher: 'aes-256-cbc', passphrase: 'x' }).toString();
    const encryptedPkcs1 = rsa.export({ format: 'pem', type: 'pkcs1', cipher: 'aes-256-cbc', passphrase: 'x' }).toString();
    const body = pkcs8(rsa).split('\n').slice(1, -2).join('\n');
    const cases = {
      'an EC key': pkcs8(ec),
      'an EC key in SEC1': ec.export({ format: 'pem', type: 'sec1' }).toString(),
      'an encrypted PKCS #8 key': encrypted,
      'an encrypted PKCS #1 key': encryptedPkcs1,
      'two keys': pkcs1 + pkcs8(rsa),
      'a key after other text': `garbage\n${pkcs1}`,
      'mismatched labels': `-----BEGIN RSA PRIVATE KEY-----\n${body}\n-----END PRIVATE KEY-----\n`,
      'padding inside the body': pkcs1.replace(/\n(?!-)/, '=\n'),
      'a PKCS #8 body labelled PKCS #1': `-----BEGIN RSA PRIVATE KEY-----\n${body}\n-----END RSA PRIVATE KEY-----\n`,
    };
    for (const [name, pem] of Object.entries(cases)) {
      if (name !== 'a PKCS #8 body labelled PKCS #1') assert.equal(rsaPkcs1Der(pem), undefined, name);
      let general: KeyObject | Error;
      try {
        general = createPrivateKey(pem);
      } catch (error) {
        general = error as Error;
      }
      if (general instanceof Error) assert.throws(() => privateKeyFromPem(pem), { message: general.message }, name);
      else assert.ok(privateKeyFromPem(pem).equals(general), name);
    }
  });

  it('refuses a PKCS #8 structure that is not an RSA key, however it is cut', () => {
    const der = Buffer.from(pkcs8(rsa).split('\n').slice(1, -2).join(''), 'base64');
    const wrap = (bytes: Buffer) => `-----BEGIN PRIVATE KEY-----\n${bytes.toString('base64')}\n-----END PRIVATE KEY-----\n`;
    for (let cut = 1; cut < 40; cut++) assert.equal(rsaPkcs1Der(wrap(der.subarray(0, der.length - cut))), undefined, `cut ${cut}`);
    const otherOid = Buffer.from(der);
    otherOid[otherOid.indexOf(Buffer.from('2a864886f70d010101', 'hex')) + 8] = 0x02;
    assert.equal(rsaPkcs1Der(wrap(otherOid)), undefined);
    assert.ok(rsaPkcs1Der(wrap(der)));
  });
});

describe('certificateFromSecret with RSA keys read the fast way', () => {
  it('accepts the key of the certificate and refuses any other', async () => {
    const certificate = await selfSignedCertificate(['fast.example']);
    const secret = (keyPem: string) => ({
      metadata: { namespace: 'ns', name: 'tls' },
      type: 'kubernetes.io/tls',
      data: { 'tls.crt': Buffer.from(certificate.certificatePem).toString('base64'), 'tls.key': Buffer.from(keyPem).toString('base64') },
    });
    assert.ok(rsaPkcs1Der(certificate.keyPem), 'openssl req writes an RSA key the fast path reads');
    const own = certificateFromSecret(secret(certificate.keyPem), 'ns/tls');
    assert.ok(own.ok && own.certificate.hosts.includes('fast.example'));
    for (const other of [pkcs8(rsa), pkcs1]) {
      const result = certificateFromSecret(secret(other), 'ns/tls');
      assert.ok(!result.ok && /tls\.key does not belong to tls\.crt/.test(result.reason));
    }
  });
});
