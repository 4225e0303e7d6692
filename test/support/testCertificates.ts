import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** PEM file paths of a throw-away PKI for one test control plane. */
export interface TestCertificates {
  readonly caCert: string;
  /** kube-apiserver's serving certificate (SANs 127.0.0.1, localhost). */
  readonly servingCert: string;
  readonly servingKey: string;
  /** Client certificate of a cluster admin (group system:masters). */
  readonly adminCert: string;
  readonly adminKey: string;
  /** ServiceAccount token signing key pair. */
  readonly serviceAccountKey: string;
  readonly serviceAccountPublicKey: string;
}

// P-256 keys: generated in milliseconds, and accepted by Go's TLS, Node's TLS
// and the ServiceAccount token signer (ES256).
const ecKeyOptions = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
const validDays = '7';

/** Creates the CA, certificates and keys in `dir` with the openssl CLI. */
export async function createTestCertificates(dir: string): Promise<TestCertificates> {
  const path = (name: string): string => join(dir, name);
  const caCert = path('ca.crt');
  const caKey = path('ca.key');
  await openssl(
    'req',
    '-x509',
    ...ecKeyOptions,
    '-keyout',
    caKey,
    '-out',
    caCert,
    '-days',
    validDays,
    '-subj',
    '/CN=portico-test-ca',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  );

  const issue = async (name: string, subject: string, extensions: string): Promise<{ cert: string; key: string }> => {
    const cert = path(`${name}.crt`);
    const key = path(`${name}.key`);
    const csr = path(`${name}.csr`);
    const extensionsFile = path(`${name}.ext`);
    await writeFile(extensionsFile, extensions);
    await openssl('req', '-new', ...ecKeyOptions, '-keyout', key, '-out', csr, '-subj', subject);
    await openssl(
      'x509',
      '-req',
      '-in',
      csr,
      '-CA',
      caCert,
      '-CAkey',
      caKey,
      '-out',
      cert,
      '-days',
      validDays,
      '-set_serial',
      `0x${randomBytes(16).toString('hex')}`,
      '-extfile',
      extensionsFile,
    );
    return { cert, key };
  };

  const serving = await issue(
    'apiserver',
    '/CN=kube-apiserver',
    [
      'basicConstraints=critical,CA:FALSE',
      'keyUsage=critical,digitalSignature',
      'extendedKeyUsage=serverAuth',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
    ].join('\n'),
  );
  const admin = await issue(
    'admin',
    '/O=system:masters/CN=portico-test-admin',
    ['basicConstraints=critical,CA:FALSE', 'keyUsage=critical,digitalSignature', 'extendedKeyUsage=clientAuth'].join('\n'),
  );

  const serviceAccountKey = path('service-account.key');
  const serviceAccountPublicKey = path('service-account.pub');
  await openssl('genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', serviceAccountKey);
  await openssl('pkey', '-in', serviceAccountKey, '-pubout', '-out', serviceAccountPublicKey);

  return {
    caCert,
    servingCert: serving.cert,
    servingKey: serving.key,
    adminCert: admin.cert,
    adminKey: admin.key,
    serviceAccountKey,
    serviceAccountPublicKey,
  };
}

async function openssl(...args: string[]): Promise<void> {
  try {
    await run('openssl', args, { timeout: 30_000 });
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? '';
    throw new Error(`openssl ${args[0] ?? ''} failed: ${(error as Error).message}\n${stderr}`);
  }
}
