// The ConfigMap's TLS keys end to end, with the host's certificate served from
// Lua (ssl_certificate_by_lua): openssl s_client against Portico's nginx
// resumes sessions (-sess_out / -sess_in) from the cache or from tickets,
// across a reload with ssl-session-ticket-key, sends TLS 1.3 early data, offers
// ECDH groups and DHE ciphers, and an unknown name is refused with
// ssl-reject-handshake. Each test sets the ConfigMap it needs and waits until
// nginx runs it (the reload, and the workers of the configuration before retired).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { applySecret } from '../support/applySecret.js';
import { createTestNamespace, sharedControlPlane } from '../support/controlPlane.js';
import {
  applyIngressAndReload,
  createService,
  ingress,
  paths,
  startBackends,
  startE2eCluster,
  type E2eCluster,
} from '../support/e2eCluster.js';
import { eventually } from '../support/eventually.js';
import { httpGet } from '../support/httpGet.js';
import { servingWorkerPids, untilRetired } from '../support/nginxWorkers.js';
import { appliedConfigurations, readFrom } from '../support/porticoLog.js';
import { applyTlsSecret } from '../support/tlsSecrets.js';

const run = promisify(execFile);
const SETTINGS_NAME = 'tls-settings';
const HOST = 'resume.tls.test';
const UNTIL_SERVED = { timeoutMs: 20_000 };

let cluster: E2eCluster;
let scratch: string;

before(async () => {
  const plane = await sharedControlPlane();
  const namespace = await createTestNamespace(plane.adminKubeconfig, 'tls-settings');
  const admin = new KubeConfig();
  admin.loadFromFile(plane.adminKubeconfig);
  await admin.makeApiClient(CoreV1Api).createNamespacedConfigMap({ namespace, body: { metadata: { name: SETTINGS_NAME }, data: {} } });
  cluster = await startE2eCluster('tls-settings', [`--configmap=${namespace}/${SETTINGS_NAME}`], { namespace });
  scratch = await mkdtemp(join(tmpdir(), 'portico-tls-settings-'));
  await createService(cluster, 'web', await startBackends(cluster, 'web'));
  await applyTlsSecret(cluster, 'resume', [HOST]);
  // Its own reload must be over before applySettings waits for the next one (a TLS host is served before it).
  await applyIngressAndReload(
    cluster,
    ingress(cluster, 'resume', {
      tls: [{ hosts: [HOST], secretName: 'resume' }],
      rules: [{ host: HOST, http: { paths: paths(['/', 'Prefix', 'web']) } }],
    }),
  );
  await eventually(async () => {
    assert.equal((await httpGet({ port: cluster.portico.ports.https, host: HOST, https: true })).status, 200);
  }, UNTIL_SERVED);
});
after(async () => {
  await cluster?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

/** Replaces the ConfigMap's data and waits until nginx runs the configuration it makes. */
async function applySettings(data: Record<string, string>): Promise<void> {
  const log = cluster.portico.process.logPath;
  const offset = (await stat(log)).size;
  const serving = await servingWorkerPids(cluster.portico.prefix);
  await cluster.core.replaceNamespacedConfigMap({
    name: SETTINGS_NAME,
    namespace: cluster.namespace,
    body: { metadata: { name: SETTINGS_NAME }, data },
  });
  await eventually(async () => {
    if (appliedConfigurations(await readFrom(log, offset)).reloads === 0) throw new Error(`no reload yet\n${cluster.portico.logTail(20)}`);
  }, UNTIL_SERVED);
  await untilRetired(cluster.portico.prefix, serving, UNTIL_SERVED.timeoutMs);
}

interface Handshake {
  /** Whether a TLS session was established (the request answered). */
  connected: boolean;
  reused: boolean;
  output: string;
}

/** One `openssl s_client` connection to the HTTPS port sending one request; `args` adds -tls1_2, -sess_out, -groups... */
async function sClient(args: readonly string[], servername = HOST): Promise<Handshake> {
  const request = join(scratch, `request-${randomBytes(4).toString('hex')}`);
  await writeFile(request, `GET / HTTP/1.1\r\nHost: ${servername}\r\nConnection: close\r\n\r\n`);
  const argv = ['s_client', '-connect', `127.0.0.1:${cluster.portico.ports.https}`, '-servername', servername, '-ign_eof', ...args];
  // s_client reads the request from stdin; a sh redirection keeps execFile's arguments unquoted.
  const { stdout, stderr } = await run('sh', ['-c', 'exec openssl "$@" < "$0"', request, ...argv], { timeout: 15_000 }).catch(
    (error: { stdout?: string; stderr?: string }) => ({ stdout: error.stdout ?? '', stderr: error.stderr ?? '' }),
  );
  const output = stdout + stderr;
  return { connected: /^HTTP\/1\.1 200/m.test(output), reused: /^Reused, /m.test(output), output };
}

/** A first connection saving its session, then one offering it: whether the second resumed it. */
async function resumes(protocol: '-tls1_2' | '-tls1_3', between: () => Promise<void> = async () => {}): Promise<boolean> {
  const session = join(scratch, `session-${randomBytes(4).toString('hex')}`);
  const first = await sClient([protocol, '-sess_out', session]);
  assert.ok(first.connected, first.output);
  assert.match(first.output, new RegExp(`subject=CN = ${HOST.replaceAll('.', '\\.')}`), 'the certificate is the host’s, served from Lua');
  await between();
  const second = await sClient([protocol, '-sess_in', session]);
  assert.ok(second.connected, second.output);
  return second.reused;
}

const ticketIssued = (handshake: Handshake): boolean => /TLS session ticket lifetime hint/.test(handshake.output);

describe('session resumption', () => {
  test('defaults: resumed from the shared cache, and no session tickets (ingress-nginx turns them off)', async () => {
    await applySettings({ 'ssl-buffer-size': '8k' });
    assert.equal(await resumes('-tls1_2'), true);
    assert.equal(ticketIssued(await sClient(['-tls1_2'])), false);
  });

  test('ssl-session-cache false: nothing is resumed; with ssl-session-tickets true, resumed from the ticket', async () => {
    await applySettings({ 'ssl-session-cache': 'false' });
    assert.equal(await resumes('-tls1_2'), false);
    assert.equal(await resumes('-tls1_3'), false);
    await applySettings({ 'ssl-session-cache': 'false', 'ssl-session-tickets': 'true' });
    assert.equal(ticketIssued(await sClient(['-tls1_2'])), true);
    assert.equal(await resumes('-tls1_2'), true);
    assert.equal(await resumes('-tls1_3'), true);
  });

  test('ssl-session-ticket-key: a ticket still resumes after a reload; without it, a reload makes a new key', async () => {
    const tickets = { 'ssl-session-cache': 'false', 'ssl-session-tickets': 'true' };
    const reload = (extra: Record<string, string>) => () => applySettings({ ...tickets, ...extra });
    // Each step changes nginx.conf (ssl-buffer-size), or there would be no reload.
    await applySettings({ ...tickets, 'ssl-buffer-size': '8k' });
    assert.equal(await resumes('-tls1_2', reload({ 'ssl-buffer-size': '16k' })), false);
    const key = randomBytes(80).toString('base64');
    await applySettings({ ...tickets, 'ssl-session-ticket-key': key });
    assert.equal(await resumes('-tls1_2', reload({ 'ssl-session-ticket-key': key, 'ssl-buffer-size': '8k' })), true);
    assert.equal(await resumes('-tls1_3', reload({ 'ssl-session-ticket-key': key, 'ssl-buffer-size': '16k' })), true);
  });
});

describe('ssl-early-data', () => {
  const earlyData = async (): Promise<string> => {
    const session = join(scratch, `session-${randomBytes(4).toString('hex')}`);
    const early = join(scratch, 'early-request');
    await writeFile(early, `GET / HTTP/1.1\r\nHost: ${HOST}\r\n\r\n`);
    assert.ok((await sClient(['-tls1_3', '-sess_out', session])).connected);
    const second = await sClient(['-tls1_3', '-sess_in', session, '-early_data', early]);
    return /^Early data was (accepted|rejected|not sent)/m.exec(second.output)?.[1] ?? second.output;
  };

  test('off by default: the session allows none, so the client sends none; on: accepted, with the certificate from Lua', async () => {
    await applySettings({ 'ssl-session-tickets': 'true' });
    assert.equal(await earlyData(), 'not sent');
    await applySettings({ 'ssl-session-tickets': 'true', 'ssl-early-data': 'true' });
    assert.equal(await earlyData(), 'accepted');
  });
});

describe('ssl-ecdh-curve', () => {
  const tempKey = (handshake: Handshake): string => /^(?:Server|Peer) Temp Key: (.*)$/m.exec(handshake.output)?.[1] ?? 'none';

  test('auto by default (X25519 offered first is taken); P-384 only: a client offering only X25519 is refused', async () => {
    await applySettings({});
    assert.match(tempKey(await sClient(['-tls1_3', '-groups', 'X25519:P-384'])), /^X25519/);
    await applySettings({ 'ssl-ecdh-curve': 'P-384' });
    const refused = await sClient(['-tls1_3', '-groups', 'X25519']);
    assert.equal(refused.connected, false, refused.output);
    assert.match(tempKey(await sClient(['-tls1_3', '-groups', 'X25519:P-384'])), /^ECDH, (P-384|secp384r1)/);
    assert.match(tempKey(await sClient(['-tls1_2', '-groups', 'X25519:P-384'])), /^ECDH, (P-384|secp384r1)/);
  });
});

describe('ssl-dh-param', () => {
  const DHE = ['-tls1_2', '-cipher', 'DHE-RSA-AES128-GCM-SHA256'];
  const dhParameters = async (group: string): Promise<string> =>
    (await run('openssl', ['genpkey', '-genparam', '-algorithm', 'DH', '-pkeyopt', `group:${group}`], { timeout: 30_000 })).stdout;

  test("no DHE cipher without it; with the Secret's dhparam.pem, DHE with its prime, and a Secret edit takes effect", async () => {
    await applySettings({});
    assert.equal((await sClient(DHE)).connected, false);
    await applySecret(cluster, 'dhparam', { 'dhparam.pem': await dhParameters('ffdhe2048') });
    await applySettings({ 'ssl-dh-param': `${cluster.namespace}/dhparam` });
    const dhe = await sClient(DHE);
    assert.ok(dhe.connected, dhe.output);
    assert.match(dhe.output, /Temp Key: DH, 2048 bits/);
    // Only the Secret changes: the store passes it on, and nginx loads the new parameters.
    await applySecret(cluster, 'dhparam', { 'dhparam.pem': await dhParameters('ffdhe3072') });
    await eventually(async () => assert.match((await sClient(DHE)).output, /Temp Key: DH, 3072 bits/), UNTIL_SERVED);
  });
});

describe('ssl-reject-handshake', () => {
  test('the catch-all refuses a handshake for a name no server has; the host’s own name still connects', async () => {
    await applySettings({});
    assert.ok((await sClient(['-tls1_3'], 'unknown.tls.test')).output.includes('Certificate chain'));
    await applySettings({ 'ssl-reject-handshake': 'true' });
    const unknown = await sClient(['-tls1_3'], 'unknown.tls.test');
    assert.equal(unknown.connected, false, unknown.output);
    assert.match(unknown.output, /unrecognized name/);
    assert.ok((await sClient(['-tls1_3'])).connected);
    assert.ok((await sClient(['-tls1_2'])).connected);
  });
});
