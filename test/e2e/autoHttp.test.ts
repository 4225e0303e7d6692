// backend-protocol: AUTO_HTTP through the real API server, Portico and nginx:
// the backend is spoken to with the client's scheme. An echo backend serving
// only HTTPS does not answer a client's HTTP request (nginx speaks HTTP to a
// TLS port: 502) and answers its HTTPS one (the backend sees TLS).
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { eventually } from '../support/eventually.js';
import type { EchoResponse } from '../../tools/echo/echoServer.js';
import { httpGet } from '../support/httpGet.js';
import {
  applyIngressAndReload,
  createService,
  ECHO_PORT,
  ingress,
  paths,
  startE2eCluster,
  type E2eCluster,
} from '../support/e2eCluster.js';
import { createTestCertificates } from '../support/testCertificates.js';

let cluster: E2eCluster;
let dir: string;
const HOST = 'auto.auto-http.test';

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'portico-e2e-auto-http-'));
  const certificates = await createTestCertificates(dir);
  cluster = await startE2eCluster('auto-http');
  const address = await cluster.network.addAddress();
  const backend = await cluster.network.startEcho({
    service: 'secure',
    instance: 'secure-1',
    address,
    port: ECHO_PORT,
    tls: { certFile: certificates.servingCert, keyFile: certificates.servingKey },
  });
  await createService(cluster, 'secure', [backend]);
  const annotations = { 'nginx.ingress.kubernetes.io/backend-protocol': 'AUTO_HTTP' };
  await applyIngressAndReload(
    cluster,
    ingress(cluster, 'auto', { rules: [{ host: HOST, http: { paths: paths(['/', 'Prefix', 'secure']) } }] }, annotations),
  );
});
after(async () => {
  await cluster?.close();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

// HTTP first: nginx keeps idle upstream connections per peer address, and a later plain
// request to the same endpoint may reuse a TLS connection an HTTPS request opened
// (as in ingress-nginx, which shares one upstream too).
test('HTTP from the client is HTTP to the backend (which, TLS-only, does not answer it); HTTPS is HTTPS', async () => {
  await eventually(
    async () => {
      const plain = await httpGet({ port: cluster.portico.ports.http, host: HOST });
      assert.equal(plain.status, 502, plain.body.slice(0, 200));
    },
    { timeoutMs: 20_000 },
  );
  const answer = await httpGet({ port: cluster.portico.ports.https, host: HOST, https: true });
  assert.equal(answer.status, 200, answer.body.slice(0, 200));
  const secure = JSON.parse(answer.body) as EchoResponse;
  assert.equal(secure.service, 'secure');
  assert.equal(secure.tls, true);
});
