// Balancing set by annotations, through the model and the live state to the
// Lua balancer: round robin, consistent hashing, cookie affinity and canary.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../support/eventually.js';
import { echoed, httpGet } from '../support/httpGet.js';
import {
  applyIngress,
  applyIngressAndReload,
  createService,
  ingress,
  paths,
  setEndpoints,
  startBackends,
  startE2eCluster,
  type E2eCluster,
} from '../support/e2eCluster.js';
import type { EchoBackend } from '../support/testNetwork.js';

const PREFIX = 'nginx.ingress.kubernetes.io';
let cluster: E2eCluster;
let pool: EchoBackend[];

before(async () => {
  cluster = await startE2eCluster('balancing');
  pool = await startBackends(cluster, 'pool', 10);
});
after(() => cluster?.close());

async function serve(name: string, annotations: Record<string, string>, backends: readonly EchoBackend[] = pool): Promise<string> {
  const host = `${name}.balancing.test`;
  await createService(cluster, name, backends);
  // The reload too: a plain host answers from the catch-all before it, and the spreads below must not span it.
  await applyIngressAndReload(
    cluster,
    ingress(cluster, name, { rules: [{ host, http: { paths: paths(['/', 'Prefix', name]) } }] }, prefixed(annotations)),
  );
  // The host answers; applyIngressAndReload has seen the previous workers retire, so none answers without it.
  await eventually(async () => {
    for (let i = 0; i < 20; i++) assert.equal((await httpGet({ port: cluster.portico.ports.http, host })).status, 200);
  });
  return host;
}

function prefixed(annotations: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(annotations).map(([key, value]) => [`${PREFIX}/${key}`, value]));
}

/** How many of `count` requests each answering instance got. */
async function spread(
  host: string,
  count: number,
  request: { path?: string; headers?: Record<string, string> } = {},
): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (let i = 0; i < count; i++) {
    const result = await httpGet({ port: cluster.portico.ports.http, host, ...request });
    const answer = result.status === 200 ? echoed(result).instance : String(result.status);
    counts.set(answer, (counts.get(answer) ?? 0) + 1);
  }
  return counts;
}

test('round robin spreads evenly over 10 endpoints', async () => {
  const host = await serve('roundrobin', {});
  const counts = await spread(host, 500);
  assert.equal(counts.size, 10, `instances: ${[...counts.keys()].join(', ')}`);
  for (const [instance, count] of counts) assert.ok(count >= 40 && count <= 60, `${instance}: ${count} of 500`);
});

test('upstream-hash-by keeps a key on one endpoint and moves few keys when an endpoint is added', async () => {
  const five = pool.slice(0, 5);
  const host = await serve('hashed', { 'upstream-hash-by': '$arg_key' }, five);
  const owner = async (key: number) => [...(await spread(host, 1, { path: `/?key=${key}` })).keys()][0];
  const before = new Map<number, string | undefined>();
  for (let key = 0; key < 100; key++) before.set(key, await owner(key));
  for (let i = 0; i < 20; i++) assert.equal(await owner(7), before.get(7), 'the same key, the same endpoint');

  const six = pool.slice(0, 6);
  await setEndpoints(
    cluster,
    'hashed',
    six.map((backend) => backend.address),
  );
  await eventually(async () => {
    let moved = 0;
    for (let key = 0; key < 100; key++) if ((await owner(key)) !== before.get(key)) moved++;
    assert.ok(moved > 0, 'the new endpoint takes some keys');
    assert.ok(moved <= 34, `${moved} of 100 keys moved to a new endpoint`);
  });
});

test('cookie affinity sticks to one endpoint', async () => {
  const host = await serve('sticky', { affinity: 'cookie', 'session-cookie-name': 'PORTICO' });
  const first = await httpGet({ port: cluster.portico.ports.http, host });
  const setCookie = first.headers['set-cookie']?.[0] ?? '';
  assert.match(setCookie, /^PORTICO=[^;]+/);
  const cookie = setCookie.split(';')[0] ?? '';
  const counts = await spread(host, 30, { headers: { cookie } });
  assert.deepEqual([...counts.keys()], [echoed(first).instance]);
});

test('canary: header always/never, cookie, and a 50% weight split', async () => {
  const [stable, canary] = [pool.slice(0, 1), pool.slice(1, 2)];
  const host = await serve('primary', {}, stable);
  await createService(cluster, 'canary', canary);
  await applyIngress(
    cluster,
    ingress(
      cluster,
      'canary',
      { rules: [{ host, http: { paths: paths(['/', 'Prefix', 'canary']) } }] },
      prefixed({ canary: 'true', 'canary-by-header': 'X-Canary', 'canary-by-cookie': 'canary', 'canary-weight': '50' }),
    ),
  );
  // startBackends names instances <service>-<n>: the stable side is pool-1, the canary pool-2.
  const canaryInstance = 'pool-2';
  await eventually(async () =>
    assert.deepEqual([...(await spread(host, 5, { headers: { 'x-canary': 'always' } })).keys()], [canaryInstance]),
  );
  assert.deepEqual([...(await spread(host, 10, { headers: { 'x-canary': 'never' } })).keys()], ['pool-1']);
  assert.deepEqual([...(await spread(host, 10, { headers: { cookie: 'canary=always' } })).keys()], [canaryInstance]);
  const split = await spread(host, 200);
  const toCanary = split.get(canaryInstance) ?? 0;
  assert.ok(toCanary >= 80 && toCanary <= 120, `canary got ${toCanary} of 200`);
});

test("affinity-canary-behavior sticky: a client the canary took keeps the primary's cookie and stays on the canary", async () => {
  const affinity = { affinity: 'cookie', 'session-cookie-name': 'STICKY' };
  const host = await serve('stickyprimary', affinity, pool.slice(2, 4));
  await createService(cluster, 'stickycanary', pool.slice(4, 5));
  await applyIngress(
    cluster,
    ingress(
      cluster,
      'stickycanary',
      { rules: [{ host, http: { paths: paths(['/', 'Prefix', 'stickycanary']) } }] },
      prefixed({ canary: 'true', 'canary-weight': '50' }),
    ),
  );
  const canaryInstance = 'pool-5';
  // Fresh clients until the weight sends one to the canary (50 %, so 30 tries fail with odds of 1e-9).
  const taken = await eventually(async () => {
    for (let i = 0; i < 30; i++) {
      const answer = await httpGet({ port: cluster.portico.ports.http, host });
      if (answer.status === 200 && echoed(answer).instance === canaryInstance) return answer;
    }
    throw new Error('no request of 30 reached the canary');
  });
  const setCookie = taken.headers['set-cookie']?.[0] ?? '';
  assert.match(setCookie, /^STICKY=[^;]+/, "the canary backend sets the primary's affinity cookie");
  const counts = await spread(host, 30, { headers: { cookie: setCookie.split(';')[0] ?? '' } });
  assert.deepEqual([...counts.keys()], [canaryInstance], 'the weight is not drawn again for a pinned client');
});
