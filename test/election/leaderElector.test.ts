// The elector against the real API server, in process: candidates racing for
// one Lease never lead at the same time (the resourceVersion on every write
// lets only one of them win), and stopping releases the lease.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { electionTimings, LeaderElector } from '../../src/election/leaderElector.js';
import { LeaseLock } from '../../src/election/leaseLock.js';
import { KubeHttpClient } from '../../src/kube/kubeHttpClient.js';
import { loadKubeConfig } from '../../src/kube/loadKubeConfig.js';
import { silentLogger } from '../../src/log/logger.js';
import { sharedControlPlane } from '../support/controlPlane.js';
import { eventually } from '../support/eventually.js';

describe('electionTimings', () => {
  test('derive renew and retry from the ttl as ingress-nginx does', () => {
    assert.deepEqual(electionTimings(30_000), { leaseDurationMs: 30_000, renewDeadlineMs: 15_000, retryPeriodMs: 7_500 });
  });

  test('refuse a ttl under a second (the retry period would spin)', () => {
    assert.throws(() => electionTimings(0), /at least 1s/);
    assert.throws(() => electionTimings(999), /at least 1s/);
  });
});

describe('candidates racing for one Lease', () => {
  const clients: KubeHttpClient[] = [];
  after(async () => {
    for (const client of clients) await client.close();
  });

  test('never lead together; exactly one leads; stopping releases the lease', async () => {
    const { controllerKubeconfig } = await sharedControlPlane();
    const name = `race-${randomUUID().slice(0, 8)}`;
    const timings = electionTimings(2000);
    const stop = new AbortController();
    const leadership: boolean[] = [];
    const electors: LeaderElector[] = [];
    for (let i = 0; i < 5; i++) {
      // One connection pool each, as separate processes would have.
      const client = await KubeHttpClient.fromKubeConfig(loadKubeConfig({ kubeconfig: controllerKubeconfig }));
      clients.push(client);
      const lock = new LeaseLock(client, 'portico', name, timings.renewDeadlineMs);
      electors.push(
        new LeaderElector({
          lock,
          identity: `candidate-${i}`,
          timings,
          callbacks: { onStartedLeading: () => leadership.push(true), onStoppedLeading: () => leadership.push(false) },
          logger: silentLogger(),
        }),
      );
    }
    const runs = electors.map((elector) => elector.run(stop.signal));

    let maxTogether = 0;
    const deadline = Date.now() + 3000;
    while (Date.now() < deadline) {
      maxTogether = Math.max(maxTogether, electors.filter((elector) => elector.isLeader()).length);
      await sleep(20);
    }
    assert.equal(maxTogether, 1, 'one leader at a time, and one there is');
    assert.deepEqual(leadership, [true], 'the first leader kept the lease: no step-downs, no second leader');
    const leader = electors.findIndex((elector) => elector.isLeader());
    const client = clients[0] as KubeHttpClient;
    const held = await new LeaseLock(client, 'portico', name, 5000).get();
    assert.equal(held?.record.holderIdentity, `candidate-${leader}`);
    assert.equal(held?.record.leaseTransitions, 0);

    // A candidate whose try was under way when all stop may take the released Lease (a transition) and release it too.
    stop.abort();
    await Promise.all(runs);
    const lease = await new LeaseLock(client, 'portico', name, 5000).get();
    assert.equal(lease?.record.holderIdentity, '', `candidate-${leader} released it`);
  });
});

describe('a Lease this identity may not use (403)', () => {
  test('is reported once, naming the permissions and the namespace, then retried quietly with backoff', async () => {
    const { controllerKubeconfig } = await sharedControlPlane();
    const client = await KubeHttpClient.fromKubeConfig(loadKubeConfig({ kubeconfig: controllerKubeconfig }));
    const lines: { level: number; msg: string }[] = [];
    const logger = pino(
      { level: 'debug' },
      { write: (line: string) => void lines.push(JSON.parse(line) as { level: number; msg: string }) },
    );
    const stop = new AbortController();
    // deploy/rbac.yaml grants Leases in portico only.
    const elector = new LeaderElector({
      lock: new LeaseLock(client, 'default', `forbidden-${randomUUID().slice(0, 8)}`, 500),
      identity: 'candidate',
      timings: electionTimings(1000),
      callbacks: { onStartedLeading: () => assert.fail('a forbidden lease is never led'), onStoppedLeading: () => undefined },
      logger,
    });
    const run = elector.run(stop.signal);
    try {
      const retries = () => lines.filter((line) => line.msg === 'the lease is still forbidden').length;
      await eventually(() => assert.ok(retries() >= 3, `${retries()} quiet retries so far`), { timeoutMs: 20_000 });
      const loud = lines.filter((line) => line.level >= pino.levels.values['warn']!);
      assert.equal(loud.length, 1, `one warning or error in all: ${loud.map((line) => line.msg).join(' | ')}`);
      assert.equal(loud[0]?.level, pino.levels.values['error']);
      assert.match(
        loud[0]?.msg ?? '',
        /forbidden to use the Lease default\/forbidden-\w+: grant .*get, create and update on leases \(coordination\.k8s\.io\) in namespace default/,
      );
    } finally {
      stop.abort();
      await run;
      await client.close();
    }
  });
});
