// A throw-away certificate authority for client certificates (mTLS tests):
// its CA certificate, client certificates it issues, and a CRL revoking some
// of them, all made with the openssl CLI.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface ClientCertificate {
  readonly commonName: string;
  readonly certificatePem: string;
  readonly keyPem: string;
}

export interface ClientCertificateAuthority {
  readonly caPem: string;
  issue(commonName: string): Promise<ClientCertificate>;
  /** A CRL (PEM) of this CA listing `revoked`. */
  crl(revoked: readonly ClientCertificate[]): Promise<string>;
  close(): Promise<void>;
}

const ecKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

export async function createClientCertificateAuthority(name: string): Promise<ClientCertificateAuthority> {
  const dir = await mkdtemp(join(tmpdir(), 'portico-client-ca-'));
  const path = (file: string) => join(dir, file);
  await openssl(
    'req',
    '-x509',
    ...ecKey,
    '-keyout',
    path('ca.key'),
    '-out',
    path('ca.crt'),
    '-days',
    '2',
    '-subj',
    `/CN=${name}`,
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  );
  await writeFile(
    path('client.ext'),
    'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=clientAuth\n',
  );
  let issued = 0;
  return {
    caPem: await readFile(path('ca.crt'), 'utf8'),
    async issue(commonName) {
      const base = path(`client-${++issued}`);
      await openssl('req', '-new', ...ecKey, '-keyout', `${base}.key`, '-out', `${base}.csr`, '-subj', `/CN=${commonName}`);
      await openssl(
        'x509',
        '-req',
        '-in',
        `${base}.csr`,
        '-CA',
        path('ca.crt'),
        '-CAkey',
        path('ca.key'),
        '-out',
        `${base}.crt`,
        '-days',
        '2',
        '-set_serial',
        `0x${randomBytes(8).toString('hex')}`,
        '-extfile',
        path('client.ext'),
      );
      return { commonName, certificatePem: await readFile(`${base}.crt`, 'utf8'), keyPem: await readFile(`${base}.key`, 'utf8') };
    },
    async crl(revoked) {
      // `openssl ca` keeps its revocations in a database; a fresh one per CRL lists exactly `revoked`.
      const database = await mkdtemp(join(dir, 'crl-'));
      const config = join(database, 'ca.cnf');
      await writeFile(join(database, 'index.txt'), '');
      await writeFile(join(database, 'crlnumber'), '01\n');
      await writeFile(
        config,
        `[ca]\ndefault_ca = test_ca\n[test_ca]\ndatabase = ${join(database, 'index.txt')}\ncrlnumber = ${join(database, 'crlnumber')}\n` +
          'default_md = sha256\ndefault_crl_days = 2\n',
      );
      const signing = ['-config', config, '-keyfile', path('ca.key'), '-cert', path('ca.crt')];
      for (const [index, certificate] of revoked.entries()) {
        const file = join(database, `revoked-${index}.crt`);
        await writeFile(file, certificate.certificatePem);
        await openssl('ca', ...signing, '-revoke', file);
      }
      await openssl('ca', ...signing, '-gencrl', '-out', join(database, 'crl.pem'));
      return readFile(join(database, 'crl.pem'), 'utf8');
    },
    close: () => rm(dir, { recursive: true, force: true }),
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
