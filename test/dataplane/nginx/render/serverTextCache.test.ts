// The render cache against renders from scratch: a seeded run of random
// changes to a small cluster (Ingresses, Services, endpoints, Secrets, the
// ConfigMap's settings, the default backend), each synced as the controller
// syncs (store, acceptance, model), then rendered with the cache and without;
// the two nginx.conf texts and their lines' origins must be the same.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { IngressAcceptance } from '../../../../src/controller/ingressAcceptance.js';
import { originOfLine, type OriginTable, type TracedConfig } from '../../../../src/dataplane/nginx/render/configOrigins.js';
import { renderTracedNginxConf } from '../../../../src/dataplane/nginx/render/renderNginxConf.js';
import { ServerTextCache } from '../../../../src/dataplane/nginx/render/serverTextCache.js';
import { buildConfiguration } from '../../../../src/model/buildConfiguration.js';
import { ModelMemo } from '../../../../src/model/memo/modelMemo.js';
import { PREFIX, RandomCluster } from '../../../support/randomCluster.js';
import { selfSignedCertificate } from '../../../support/tlsSecrets.js';
import { testContext } from './fixtures.js';

const SEED = 18;
const STEPS = 300;

function origins(config: TracedConfig, table: OriginTable): string {
  return Array.from({ length: config.lineOrigins.length }, (_, line) => JSON.stringify(originOfLine(config, table, line + 1))).join('\n');
}

test('a render with the cache writes what a render from scratch writes, after each of many random changes', async () => {
  const certificates = [await selfSignedCertificate(['*.test.example', 'other.example']), await selfSignedCertificate(['a.test.example'])];
  const cluster = new RandomCluster(SEED, certificates);
  const acceptance = new IngressAcceptance(PREFIX);
  const context = testContext();
  const cache = new ServerTextCache();
  const memo = new ModelMemo();
  let written = 0;
  let reused = 0;
  for (let step = 0; step <= STEPS; step++) {
    const change = step === 0 ? 'the first sync' : cluster.change();
    // With the model's memo, as the sync loop builds it: unchanged servers and backends are the same objects.
    const { configuration } = buildConfiguration(cluster.modelInput(acceptance), memo);
    const fromScratch = renderTracedNginxConf(configuration, context);
    const before = { ...cache.counts };
    const cached = renderTracedNginxConf(configuration, context, cache);
    written += cache.counts.written - before.written;
    reused += cache.counts.reused - before.reused;
    assert.equal(cached.config.text, fromScratch.config.text, `step ${step}: ${change}`);
    assert.equal(origins(cached.config, cached.origins), origins(fromScratch.config, fromScratch.origins), `step ${step}: ${change}`);
  }
  // The run tested the cache only if it reused servers, and wrote some again.
  assert.ok(reused > written, `reused ${reused}, written ${written}`);
  assert.ok(written > 20, `written ${written}`);
});
