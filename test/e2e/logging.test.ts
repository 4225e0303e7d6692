// The logging keys through the real API server, Portico and nginx: an
// access-log-path of /dev/stdout (what ingress-nginx users commonly set) puts
// nginx's access log lines in Portico's own output, and the catch-all's
// default backend is logged only with enable-access-log-for-default-backend
// (ingress-nginx's e2e default_backend.go).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { applyIngressAndReload, createService, ingress, paths, startBackends, type E2eCluster } from '../support/e2eCluster.js';
import { eventually } from '../support/eventually.js';
import { putSettings, startSettingsCluster } from '../support/settingsCluster.js';
import { httpGet } from '../support/httpGet.js';

const HOST = 'app.logging.test';
/** Portico's log lines are JSON; nginx's are this format, so they are told apart. */
const FORMAT = 'nginx-access $host $request_uri $status';
const LOGGED_TO_STDOUT = { 'log-format-upstream': FORMAT, 'access-log-path': '/dev/stdout' };

let cluster: E2eCluster;

before(async () => {
  cluster = await startSettingsCluster('logging', LOGGED_TO_STDOUT);
  await createService(cluster, 'echo', await startBackends(cluster, 'echo'));
  // The reload too: the host answers from its pending route before it, and a worker of before may 404 it after it.
  await applyIngressAndReload(
    cluster,
    ingress(cluster, 'app', { rules: [{ host: HOST, http: { paths: paths(['/', 'Prefix', 'echo']) } }] }),
  );
  await eventually(async () => assert.equal((await get(HOST, '/')).status, 200), { timeoutMs: 20_000 });
});
after(() => cluster?.close());

/** The ConfigMap with `data` besides the settings every test here relies on. */
function setSettings(data: Record<string, string>): Promise<void> {
  return putSettings(cluster, { ...LOGGED_TO_STDOUT, ...data });
}

const get = (host: string, path: string) => httpGet({ port: cluster.portico.ports.http, host, path });

/** nginx's access log lines for `marker` in Portico's output (its stdout and stderr, which nginx's master inherits). */
async function stdoutLines(marker: string): Promise<string[]> {
  const output = await readFile(cluster.portico.process.logPath, 'utf8');
  return output.split('\n').filter((line) => line.startsWith('nginx-access ') && line.includes(marker));
}

async function prefixLogLines(marker: string): Promise<string[]> {
  const content = await readFile(join(cluster.portico.prefix, 'logs', 'access.log'), 'utf8').catch(() => '');
  return content.split('\n').filter((line) => line.includes(marker));
}

test("access-log-path: /dev/stdout writes the access log to Portico's stdout, not to the prefix's file", async () => {
  const marker = randomUUID();
  // Until the ConfigMap's configuration is loaded, lines go elsewhere: wait for one at /dev/stdout.
  await eventually(
    async () => {
      assert.equal((await get(HOST, `/${marker}`)).status, 200);
      assert.ok((await stdoutLines(marker)).length > 0);
    },
    { timeoutMs: 20_000 },
  );
  const next = randomUUID();
  assert.equal((await get(HOST, `/${next}`)).status, 200);
  await eventually(async () => assert.deepEqual(await stdoutLines(next), [`nginx-access ${HOST} /${next} 200`]), { timeoutMs: 10_000 });
  assert.deepEqual(await prefixLogLines(next), []);
});

test('the catch-all\'s default backend is not logged unless enable-access-log-for-default-backend is "true"', async () => {
  const unknownHost = `unknown-${randomUUID().slice(0, 8)}.logging.test`;
  const quiet = randomUUID();
  assert.equal((await get(unknownHost, `/${quiet}`)).status, 404);
  // A request logged after it: once its line is there, the 404's would be too.
  const after = randomUUID();
  assert.equal((await get(HOST, `/${after}`)).status, 200);
  await eventually(async () => assert.equal((await stdoutLines(after)).length, 1), { timeoutMs: 10_000 });
  assert.deepEqual(await stdoutLines(quiet), []);

  await setSettings({ 'enable-access-log-for-default-backend': 'true' });
  await eventually(
    async () => {
      const logged = randomUUID();
      assert.equal((await get(unknownHost, `/${logged}`)).status, 404);
      await eventually(async () => assert.deepEqual(await stdoutLines(logged), [`nginx-access ${unknownHost} /${logged} 404`]), {
        timeoutMs: 2_000,
      });
    },
    { timeoutMs: 20_000 },
  );
});
