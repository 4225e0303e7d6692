// proxy-ssl-* through the real API server, Portico and nginx to TLS echo
// backends in the test network: verification against the Secret's ca.crt,
// proxy-ssl-name and SNI, a client certificate for a backend that requires
// one, protocols and ciphers as the backend saw them, and the Secret's
// failures (503 and a Warning Event) and edits (no Ingress edit needed).
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import assert from 'node:assert/strict';
import type { EchoResponse, TlsSession } from '../../tools/echo/echoServer.js';
import { eventually } from '../support/eventually.js';
import { echoed, httpGet, type HttpResult } from '../support/httpGet.js';
import {
  applyIngress,
  applyIngressAndReload,
  createService,
  ECHO_PORT,
  ingress,
  paths,
  startE2eCluster,
  type E2eCluster,
} from '../support/e2eCluster.js';
import { applySecret } from '../support/applySecret.js';

const run = promisify(execFile);

/** The name in the backends' certificate: neither the Service's nor nginx's default proxy_ssl_name ($proxy_host). */
const BACKEND_NAME = 'secure-backend.test';
const CLIENT_NAME = 'portico-backend-client';

let cluster: E2eCluster;
let dir: string;
let pki: { backendCa: string; wrongCa: string; clientCert: string; clientKey: string };

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'portico-e2e-proxy-ssl-'));
  const backendCa = await certificateAuthority('backend-ca');
  const wrongCa = await certificateAuthority('wrong-ca');
  const clientCa = await certificateAuthority('client-ca');
  const server = await issue(backendCa, 'backend', BACKEND_NAME, `subjectAltName=DNS:${BACKEND_NAME}\nextendedKeyUsage=serverAuth`);
  const client = await issue(clientCa, 'client', CLIENT_NAME, 'extendedKeyUsage=clientAuth');
  pki = {
    backendCa: await readFile(backendCa.cert, 'utf8'),
    wrongCa: await readFile(wrongCa.cert, 'utf8'),
    clientCert: await readFile(client.cert, 'utf8'),
    clientKey: await readFile(client.key, 'utf8'),
  };

  cluster = await startE2eCluster('proxy-ssl');
  const tls = { certFile: server.cert, keyFile: server.key };
  for (const [service, clientCaFile] of [
    ['verified', undefined],
    ['mutual', clientCa.cert],
  ] as const) {
    const address = await cluster.network.addAddress();
    const backend = await cluster.network.startEcho({
      service,
      instance: `${service}-1`,
      address,
      port: ECHO_PORT,
      tls: { ...tls, clientCaFile },
    });
    await createService(cluster, service, [backend]);
  }
});
after(async () => {
  await cluster?.close();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

interface Pem {
  cert: string;
  key: string;
}

async function openssl(...args: string[]): Promise<void> {
  await run('openssl', args, { timeout: 30_000 });
}

const EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

async function certificateAuthority(name: string): Promise<Pem> {
  const pem = { cert: join(dir, `${name}.crt`), key: join(dir, `${name}.key`) };
  await openssl('req', '-x509', ...EC_KEY, '-keyout', pem.key, '-out', pem.cert, '-days', '1', '-subj', `/CN=${name}`);
  return pem;
}

async function issue(ca: Pem, name: string, commonName: string, extensions: string): Promise<Pem> {
  const pem = { cert: join(dir, `${name}.crt`), key: join(dir, `${name}.key`) };
  const csr = join(dir, `${name}.csr`);
  const extensionFile = join(dir, `${name}.ext`);
  await writeFile(extensionFile, extensions);
  await openssl('req', '-new', ...EC_KEY, '-keyout', pem.key, '-out', csr, '-subj', `/CN=${commonName}`);
  await openssl(
    'x509',
    '-req',
    '-in',
    csr,
    '-CA',
    ca.cert,
    '-CAkey',
    ca.key,
    '-out',
    pem.cert,
    '-days',
    '1',
    '-set_serial',
    `0x${randomBytes(8).toString('hex')}`,
    '-extfile',
    extensionFile,
  );
  return pem;
}

const hostOf = (name: string): string => `${name}.proxy-ssl.test`;

/** `andReload`: until nginx reloaded with it and the workers of before retired (one would 404 the host). */
async function applyBackendTls(name: string, service: string, annotations: Record<string, string>, andReload = false): Promise<void> {
  const prefixed = Object.fromEntries(
    Object.entries({ 'backend-protocol': 'HTTPS', ...annotations }).map(([key, value]) => [`nginx.ingress.kubernetes.io/${key}`, value]),
  );
  await (andReload ? applyIngressAndReload : applyIngress)(
    cluster,
    ingress(cluster, name, { rules: [{ host: hostOf(name), http: { paths: paths(['/', 'Prefix', service]) } }] }, prefixed),
  );
}

/** Waits until a request to the host of Ingress `name` gets `status`. */
function untilStatus(name: string, status: number): Promise<HttpResult> {
  return eventually(
    async () => {
      const result = await httpGet({ port: cluster.portico.ports.http, host: hostOf(name) });
      assert.equal(result.status, status, `${hostOf(name)}: ${result.body.slice(0, 200)}`);
      return result;
    },
    { timeoutMs: 20_000 },
  );
}

/** What the backend saw of the TLS handshake nginx made. */
function sessionOf(result: HttpResult): TlsSession {
  const session = (echoed(result) as unknown as EchoResponse).tlsSession;
  assert.ok(session, 'the backend answered over TLS');
  return session;
}

describe('proxy-ssl-verify', () => {
  test('on, with the backend CA and proxy-ssl-name naming the certificate → 200; with another CA → 502', async () => {
    await applySecret(cluster, 'right-ca', { 'ca.crt': pki.backendCa });
    await applySecret(cluster, 'wrong-ca', { 'ca.crt': pki.wrongCa });
    const verified = { 'proxy-ssl-verify': 'on', 'proxy-ssl-name': BACKEND_NAME };
    await applyBackendTls('right-ca', 'verified', { ...verified, 'proxy-ssl-secret': 'right-ca' });
    await applyBackendTls('wrong-ca', 'verified', { ...verified, 'proxy-ssl-secret': `${cluster.namespace}/wrong-ca` });
    await untilStatus('right-ca', 200);
    await untilStatus('wrong-ca', 502);
  });

  test("the certificate's name must match: nginx checks $proxy_host without proxy-ssl-name (502); proxy-ssl-server-name sends it as SNI", async () => {
    await applySecret(cluster, 'name-ca', { 'ca.crt': pki.backendCa });
    await applyBackendTls('unnamed', 'verified', { 'proxy-ssl-secret': 'name-ca', 'proxy-ssl-verify': 'on' });
    await untilStatus('unnamed', 502);

    await applyBackendTls('named', 'verified', { 'proxy-ssl-secret': 'name-ca', 'proxy-ssl-verify': 'on', 'proxy-ssl-name': BACKEND_NAME });
    assert.equal(sessionOf(await untilStatus('named', 200)).serverName, undefined, 'no SNI by default');
    await applyBackendTls('named', 'verified', {
      'proxy-ssl-secret': 'name-ca',
      'proxy-ssl-verify': 'on',
      'proxy-ssl-name': BACKEND_NAME,
      'proxy-ssl-server-name': 'on',
    });
    await eventually(async () => assert.equal(sessionOf(await untilStatus('named', 200)).serverName, BACKEND_NAME), { timeoutMs: 20_000 });
  });
});

describe('a backend that requires a client certificate', () => {
  test("200 with proxy-ssl-secret's tls.crt and tls.key (the backend sees its CN), 502 without", async () => {
    await applyBackendTls('no-client-cert', 'mutual', {});
    await untilStatus('no-client-cert', 502);
    await applySecret(cluster, 'client-cert', { 'tls.crt': pki.clientCert, 'tls.key': pki.clientKey });
    await applyBackendTls('client-cert', 'mutual', { 'proxy-ssl-secret': 'client-cert' });
    assert.equal(sessionOf(await untilStatus('client-cert', 200)).clientCertificate, CLIENT_NAME);
  });

  test('a location without the client certificate never reuses a connection another location made with it', async () => {
    await applySecret(cluster, 'pooled', { 'tls.crt': pki.clientCert, 'tls.key': pki.clientKey });
    // Both reloads waited for: the rounds below ask once each.
    await applyBackendTls('pooled-with', 'mutual', { 'proxy-ssl-secret': 'pooled' }, true);
    await applyBackendTls('pooled-without', 'mutual', {}, true);
    await untilStatus('pooled-with', 200);
    await untilStatus('pooled-without', 502);
    // Alternating, so each nginx worker has idle connections with the certificate when the other location asks.
    for (let round = 0; round < 10; round++) {
      assert.equal((await httpGet({ port: cluster.portico.ports.http, host: hostOf('pooled-with') })).status, 200, `round ${round}`);
      assert.equal((await httpGet({ port: cluster.portico.ports.http, host: hostOf('pooled-without') })).status, 502, `round ${round}`);
    }
  });

  test('the key is a 0600 file in a 0700 folder while used, and gone once no Ingress uses it', async () => {
    const secrets = join(cluster.portico.prefix, 'secrets');
    const keyFile = (): Promise<string | undefined> =>
      readdir(secrets).then((names) => names.find((entry) => entry.startsWith(`${cluster.namespace}-file-client-`)));
    await applySecret(cluster, 'file', { 'tls.crt': pki.clientCert, 'tls.key': pki.clientKey });
    await applyBackendTls('file', 'mutual', { 'proxy-ssl-secret': 'file' });
    await untilStatus('file', 200);
    const file = await keyFile();
    assert.ok(file, 'the client certificate and key file');
    assert.equal((await stat(secrets)).mode & 0o777, 0o700);
    assert.equal((await stat(join(secrets, file))).mode & 0o777, 0o600);
    assert.match(await readFile(join(secrets, file), 'utf8'), /-----BEGIN PRIVATE KEY-----/);

    await applyBackendTls('file', 'mutual', {});
    await untilStatus('file', 502);
    await eventually(async () => assert.equal(await keyFile(), undefined), { timeoutMs: 20_000 });
  });
});

describe('proxy-ssl-protocols and proxy-ssl-ciphers', () => {
  test('reach the handshake: the backend reports the protocol and cipher nginx was limited to', async () => {
    await applySecret(cluster, 'protocols', { 'ca.crt': pki.backendCa });
    await applyBackendTls('tls13', 'verified', { 'proxy-ssl-secret': 'protocols', 'proxy-ssl-protocols': 'TLSv1.3' });
    await applyBackendTls('tls12', 'verified', {
      'proxy-ssl-secret': 'protocols',
      'proxy-ssl-protocols': 'TLSv1.2',
      'proxy-ssl-ciphers': 'ECDHE-ECDSA-AES256-GCM-SHA384',
    });
    assert.equal(sessionOf(await untilStatus('tls13', 200)).protocol, 'TLSv1.3');
    const tls12 = sessionOf(await untilStatus('tls12', 200));
    assert.deepEqual([tls12.protocol, tls12.cipher], ['TLSv1.2', 'ECDHE-ECDSA-AES256-GCM-SHA384']);
  });
});

describe('the Secret', () => {
  test('missing → 503 and a Warning Event; created → 200; edited to another CA → 502, without an Ingress edit', async () => {
    await applyBackendTls('later', 'verified', { 'proxy-ssl-secret': 'later', 'proxy-ssl-verify': 'on', 'proxy-ssl-name': BACKEND_NAME });
    await untilStatus('later', 503);
    const events = await eventually(
      async () => {
        const list = await cluster.core.listNamespacedEvent({ namespace: cluster.namespace, fieldSelector: 'involvedObject.name=later' });
        const found = list.items.filter((event) => event.type === 'Warning' && event.reason === 'BackendTlsSecret');
        assert.ok(found.length > 0, 'a BackendTlsSecret Warning Event');
        return found;
      },
      { timeoutMs: 20_000 },
    );
    assert.match(events[0]?.message ?? '', /later not found/);

    await applySecret(cluster, 'later', { 'ca.crt': pki.backendCa });
    await untilStatus('later', 200);
    await applySecret(cluster, 'later', { 'ca.crt': pki.wrongCa });
    await untilStatus('later', 502);
    await applySecret(cluster, 'later', { 'ca.crt': 'not a certificate' });
    await untilStatus('later', 503);
  });

  test("another namespace's Secret is refused (503) while allow-cross-namespace-resources is false", async () => {
    await applyBackendTls('cross', 'verified', { 'proxy-ssl-secret': 'kube-system/anything' });
    await untilStatus('cross', 503);
  });
});
