// Basic and digest authentication (auth-type, auth-secret, auth-secret-type,
// auth-realm) and `satisfy`, through the real API server, Portico, nginx and
// an echo backend. Password hashes are made by Apache's htpasswd (apr1,
// bcrypt, SHA); digest is spoken by curl --digest.
import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import assert from 'node:assert/strict';
import { Agent, request } from 'undici';
import { prefixLayout } from '../../src/dataplane/nginx/process/prefixLayout.js';
import type { EchoResponse } from '../../tools/echo/echoServer.js';
import { eventually } from '../support/eventually.js';
import { echoed, httpGet, type HttpResult } from '../support/httpGet.js';
import {
  applyIngress,
  applyIngressAndReload,
  createService,
  ingress,
  paths,
  startBackends,
  startE2eCluster,
  type E2eCluster,
} from '../support/e2eCluster.js';
import { applySecret } from '../support/applySecret.js';

const run = promisify(execFile);

let cluster: E2eCluster;

before(async () => {
  cluster = await startE2eCluster('basicauth');
  await createService(cluster, 'echo', await startBackends(cluster, 'echo'));
});
after(() => cluster?.close());

const REALM = 'test auth';

function hostOf(name: string): string {
  return `${name}.basicauth.test`;
}

/** `htpasswd -nb` with a format flag (-m apr1, -B bcrypt, -s SHA): the `user:hash` line. */
async function htpasswd(format: '-m' | '-B' | '-s', user: string, password: string): Promise<string> {
  const args = format === '-B' ? ['-nbB', '-C', '5', user, password] : ['-nb', format, user, password];
  const { stdout } = await run('htpasswd', args);
  return stdout.trim();
}

function basic(user: string, password: string): Record<string, string> {
  return { authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` };
}

/** `andReload`: until nginx reloaded with it and the workers of before stopped accepting (one of them would answer 404 for the new host). */
async function applyAuthIngress(name: string, annotations: Record<string, string>, andReload = false): Promise<void> {
  const prefixed = Object.fromEntries(Object.entries(annotations).map(([key, value]) => [`nginx.ingress.kubernetes.io/${key}`, value]));
  const body = ingress(cluster, name, { rules: [{ host: hostOf(name), http: { paths: paths(['/', 'Prefix', 'echo']) } }] }, prefixed);
  await (andReload ? applyIngressAndReload(cluster, body) : applyIngress(cluster, body));
}

function send(name: string, headers: Record<string, string> = {}): Promise<HttpResult> {
  return httpGet({ port: cluster.portico.ports.http, host: hostOf(name), path: '/', headers });
}

function untilStatus(name: string, status: number, headers: Record<string, string> = {}): Promise<HttpResult> {
  return eventually(
    async () => {
      const result = await send(name, headers);
      assert.equal(result.status, status, `${hostOf(name)}: ${result.body.slice(0, 200)}`);
      return result;
    },
    { timeoutMs: 20_000 },
  );
}

describe('basic authentication', () => {
  before(async () => {
    const lines = [await htpasswd('-m', 'apr', 'apr-secret'), await htpasswd('-B', 'bcrypt', 'bcrypt-secret')];
    await applySecret(cluster, 'users', { auth: `${lines.join('\n')}\n` });
    await applyAuthIngress('basic', { 'auth-type': 'basic', 'auth-secret': 'users', 'auth-realm': REALM }, true);
  });

  test('no credentials: 401 naming the realm; wrong ones: 401; right ones (apr1, bcrypt): the backend, without them', async () => {
    const refused = await untilStatus('basic', 401);
    assert.equal(refused.headers['www-authenticate'], `Basic realm="${REALM}"`);
    assert.match(refused.body, /401 Authorization Required/);
    assert.equal((await send('basic', basic('apr', 'wrong'))).status, 401);
    assert.equal((await send('basic', basic('nobody', 'apr-secret'))).status, 401);
    assert.equal((await send('basic', basic('bcrypt', 'apr-secret'))).status, 401);
    for (const [user, password] of [
      ['apr', 'apr-secret'],
      ['bcrypt', 'bcrypt-secret'],
      ['bcrypt', 'bcrypt-secret'], // the second time from the worker's cache of verified bcrypt checks
    ] as const) {
      const passed = await send('basic', basic(user, password));
      assert.equal(passed.status, 200, `${user}: ${passed.body.slice(0, 200)}`);
      const echo = echoed(passed) as unknown as EchoResponse;
      assert.equal(echo.headers.authorization, undefined, 'the backend must not see the credentials');
    }
  });

  test('the hashes are in no file of the nginx prefix; GET on the configuration server shows counts, not hashes', async () => {
    await untilStatus('basic', 200, basic('apr', 'apr-secret'));
    const secret = await cluster.core.readNamespacedSecret({ namespace: cluster.namespace, name: 'users' });
    const hashes = Buffer.from(secret.data?.auth ?? '', 'base64')
      .toString()
      .trim()
      .split('\n')
      .map((line) => line.split(':')[1] ?? '');
    assert.equal(hashes.length, 2);
    const files = await readdir(cluster.portico.prefix, { recursive: true, withFileTypes: true });
    for (const file of files.filter((entry) => entry.isFile())) {
      const text = await readFile(join(file.parentPath, file.name), 'latin1');
      for (const hash of hashes) assert.ok(!text.includes(hash), `${join(file.parentPath, file.name)} holds a hash`);
    }
    const dispatcher = new Agent({ connect: { socketPath: prefixLayout(cluster.portico.prefix).configurationSocket } });
    const response = await request('http://localhost/configuration/authentication', {
      dispatcher,
      headersTimeout: 5000,
      bodyTimeout: 5000,
    });
    const shown = await response.body.text();
    await dispatcher.close();
    assert.equal(response.statusCode, 200);
    for (const hash of hashes) assert.ok(!shown.includes(hash));
    assert.ok(Object.values((JSON.parse(shown) as { users: Record<string, number> }).users).includes(2), shown);
  });

  test('a password changed in the Secret applies without an Ingress edit and without a new nginx.conf (no reload)', async () => {
    await untilStatus('basic', 200, basic('apr', 'apr-secret'));
    const configFile = prefixLayout(cluster.portico.prefix).configFile;
    const before = await readFile(configFile, 'utf8');
    await applySecret(cluster, 'users', { auth: `${await htpasswd('-m', 'apr', 'changed')}\n` });
    await untilStatus('basic', 200, basic('apr', 'changed'));
    assert.equal((await send('basic', basic('apr', 'apr-secret'))).status, 401);
    assert.equal((await send('basic', basic('bcrypt', 'bcrypt-secret'))).status, 401, 'a user removed from the Secret is refused');
    assert.equal(await readFile(configFile, 'utf8'), before, 'nginx.conf unchanged');
  });

  test('auth-map: one key per user, {SHA} hashes', async () => {
    const hash = (await htpasswd('-s', 'mapped', 'map-secret')).split(':')[1] ?? '';
    await applySecret(cluster, 'map-users', { mapped: hash });
    await applyAuthIngress('map', { 'auth-type': 'basic', 'auth-secret': 'map-users', 'auth-secret-type': 'auth-map' }, true);
    const refused = await untilStatus('map', 401);
    assert.equal(refused.headers['www-authenticate'], 'Basic realm=""');
    await untilStatus('map', 200, basic('mapped', 'map-secret'));
    assert.equal((await send('map', basic('mapped', 'wrong'))).status, 401);
  });

  test('a missing or deleted Secret: 503, with a Warning Event on the Ingress, never an open location', async () => {
    await applyAuthIngress('missing', { 'auth-type': 'basic', 'auth-secret': 'no-such-secret' });
    await untilStatus('missing', 503);
    await untilStatus('missing', 503, basic('apr', 'apr-secret'));

    await applySecret(cluster, 'doomed', { auth: `${await htpasswd('-m', 'doomed', 'pw')}\n` });
    await applyAuthIngress('deleted', { 'auth-type': 'basic', 'auth-secret': 'doomed' });
    await untilStatus('deleted', 200, basic('doomed', 'pw'));
    await cluster.core.deleteNamespacedSecret({ namespace: cluster.namespace, name: 'doomed' });
    await untilStatus('deleted', 503, basic('doomed', 'pw'));
    await eventually(
      async () => {
        const events = await cluster.core.listNamespacedEvent({
          namespace: cluster.namespace,
          fieldSelector: 'involvedObject.name=deleted',
        });
        const warning = events.items.find((event) => event.type === 'Warning' && event.reason === 'AuthSecretUnusable');
        assert.ok(warning, `no AuthSecretUnusable Warning in ${JSON.stringify(events.items.map((event) => event.reason))}`);
        assert.match(warning.message ?? '', /doomed not found/);
      },
      { timeoutMs: 20_000 },
    );
  });

  test('a Secret of another namespace is not used (allow-cross-namespace-resources is false): 503', async () => {
    await applyAuthIngress('cross', { 'auth-type': 'basic', 'auth-secret': `kube-system/users` });
    await untilStatus('cross', 503, basic('apr', 'changed'));
  });
});

describe('digest authentication', () => {
  const md5 = (text: string) => createHash('md5').update(text).digest('hex');

  before(async () => {
    await applySecret(cluster, 'digest-users', { auth: `alice:${REALM}:${md5(`alice:${REALM}:wonderland`)}\n` });
    await applyAuthIngress('digest', { 'auth-type': 'digest', 'auth-secret': 'digest-users', 'auth-realm': REALM }, true);
  });

  async function curlDigest(password: string): Promise<string> {
    const { stdout } = await run('curl', [
      '--silent',
      '--max-time',
      '5',
      '--digest',
      '--user',
      `alice:${password}`,
      '--resolve',
      `${hostOf('digest')}:${cluster.portico.ports.http}:127.0.0.1`,
      '--write-out',
      '\n%{http_code}',
      `http://${hostOf('digest')}:${cluster.portico.ports.http}/some/path?q=1`,
    ]);
    return stdout.slice(stdout.lastIndexOf('\n') + 1);
  }

  test('without credentials: 401 with a Digest challenge; curl --digest: 200 with the right password, 401 with a wrong one', async () => {
    const challenge = await untilStatus('digest', 401);
    assert.match(
      String(challenge.headers['www-authenticate']),
      /^Digest algorithm="MD5", qop="auth", realm="test auth", nonce="[0-9a-f]{48}"$/,
    );
    assert.equal(await curlDigest('wonderland'), '200');
    assert.equal(await curlDigest('wrong'), '401');
  });
});

describe('satisfy with an allowlist (requests come from 127.0.0.1)', () => {
  const TABLE: readonly [name: string, satisfy: string | undefined, allow: string, without: number, withCredentials: number][] = [
    ['any-allowed', 'any', '127.0.0.1/32', 200, 200],
    ['any-elsewhere', 'any', '10.0.0.0/8', 401, 200],
    ['all-allowed', 'all', '127.0.0.1/32', 401, 200],
    ['all-elsewhere', 'all', '10.0.0.0/8', 403, 403],
    ['default-elsewhere', undefined, '10.0.0.0/8', 403, 403],
  ];

  before(async () => {
    await applySecret(cluster, 'satisfy-users', { auth: `${await htpasswd('-m', 'sat', 'isfied')}\n` });
    for (const [name, satisfy, allow] of TABLE) {
      await applyAuthIngress(
        name,
        {
          'auth-type': 'basic',
          'auth-secret': 'satisfy-users',
          'allowlist-source-range': allow,
          ...(satisfy === undefined ? {} : { satisfy }),
        },
        true,
      );
    }
  });

  for (const [name, satisfy, allow, without, withCredentials] of TABLE) {
    test(`satisfy ${satisfy ?? '(unset)'}, allowlist ${allow}: ${without} without credentials, ${withCredentials} with`, async () => {
      await untilStatus(name, without);
      assert.equal((await send(name, basic('sat', 'isfied'))).status, withCredentials);
      if (withCredentials === 200) assert.equal((await send(name, basic('sat', 'wrong'))).status, without === 200 ? 200 : 401);
    });
  }
});
