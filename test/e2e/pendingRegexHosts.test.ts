// A new regex host (use-regex) is served before its reload by the catch-all's
// Lua (lua/portico/routes.lua), with the answers its own `location ~*` blocks
// give once loaded; a host with a rewrite-target, which that route does not
// reproduce, waits for its reload. nginx's master is held (SIGSTOP) so the
// reload cannot happen while the pending routes are checked.
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
  startBackends,
  startE2eCluster,
  type E2eCluster,
} from '../support/e2eCluster.js';
import { nginxMasterPid, servingWorkerPids, untilRetired, whileStopped } from '../support/nginxWorkers.js';

let cluster: E2eCluster;

before(async () => {
  cluster = await startE2eCluster('pending-regex');
  for (const service of ['items', 'legacy']) await createService(cluster, service, await startBackends(cluster, service));
  // A first reload, so that the one held below is the one adding the new hosts.
  await applyIngressAndReload(
    cluster,
    ingress(cluster, 'warm', { rules: [{ host: 'warm.regex.test', http: { paths: paths(['/', 'Prefix', 'items']) } }] }),
  );
});
after(() => cluster?.close());

const REGEX_HOST = 'api.regex.test';
const REWRITE_HOST = 'rewrite.regex.test';

/** Request path → the echo instance answering, or the status without one. */
const EXPECTED: ReadonlyArray<[string, string | number]> = [
  ['/v2/items/7', 'items-1'],
  ['/V12/ITEMS', 'items-1'], // ~*: case-insensitive
  ['/v1/items', 'items-1'], // both patterns match: the longer path's location comes first
  ['/v1x', 'legacy-1'], // anchored at the start only
  ['/x/v1', 404], // the generated "/"
];

async function answer(host: string, path: string): Promise<string | number> {
  const result = await httpGet({ port: cluster.portico.ports.http, host, path });
  return result.status === 200 ? echoed(result).instance : result.status;
}

async function answers(): Promise<Array<[string, string | number]>> {
  const seen: Array<[string, string | number]> = [];
  for (const [path] of EXPECTED) seen.push([path, await answer(REGEX_HOST, path)]);
  return seen;
}

test('a new regex host answers before its reload as after it; a rewrite-target host waits for its reload', async () => {
  const useRegex = { 'nginx.ingress.kubernetes.io/use-regex': 'true' };
  const regexRules = {
    rules: [
      {
        host: REGEX_HOST,
        http: { paths: paths(['/v[0-9]+/items', 'ImplementationSpecific', 'items'], ['/v1', 'ImplementationSpecific', 'legacy']) },
      },
    ],
  };
  const rewriteRules = { rules: [{ host: REWRITE_HOST, http: { paths: paths(['/app(/|$)(.*)', 'ImplementationSpecific', 'items']) } }] };
  const rewrite = { ...useRegex, 'nginx.ingress.kubernetes.io/rewrite-target': '/$2' };
  const serving = await servingWorkerPids(cluster.portico.prefix);
  await whileStopped(await nginxMasterPid(cluster.portico.prefix), async () => {
    await applyIngress(cluster, ingress(cluster, 'rewrite', rewriteRules, rewrite));
    await applyIngress(cluster, ingress(cluster, 'regex', regexRules, useRegex));
    await eventually(async () => assert.deepEqual(await answers(), EXPECTED));
    // nginx.conf on disk may name the hosts already: the held master has not loaded it.
    assert.deepEqual(await servingWorkerPids(cluster.portico.prefix), serving, 'the workers from before serve');
    // Its sync came before the regex host's, whose routes answer: it was left out of them.
    assert.equal(await answer(REWRITE_HOST, '/app/x'), 404, 'the rewrite-target host waits');
  });
  await untilRetired(cluster.portico.prefix, serving);
  await eventually(async () =>
    assert.equal(echoed(await httpGet({ port: cluster.portico.ports.http, host: REWRITE_HOST, path: '/app/x' })).path, '/x'),
  );
  assert.deepEqual(await answers(), EXPECTED, 'its own server block answers as its pending route did');
});
