// What a replica says at start about the namespace of its election Lease.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { KubeHttpClient } from '../../src/kube/kubeHttpClient.js';
import { controllerIdentity } from '../../src/kube/controllerIdentity.js';
import { loadKubeConfig } from '../../src/kube/loadKubeConfig.js';
import { StatusReporter, type StatusSettings } from '../../src/status/statusReporter.js';
import { sharedControlPlane } from '../support/controlPlane.js';

const settings: StatusSettings = {
  updateStatus: true,
  updateStatusOnShutdown: false,
  statusUpdateInterval: 60,
  electionId: 'status-reporter-test',
  electionTtl: 30_000,
  disableLeaderElection: false,
  publishService: '',
  publishStatusAddress: '',
  reportNodeInternalIpAddress: false,
};

async function warningsAtStart(env: NodeJS.ProcessEnv): Promise<string[]> {
  const { controllerKubeconfig } = await sharedControlPlane();
  const client = await KubeHttpClient.fromKubeConfig(loadKubeConfig({ kubeconfig: controllerKubeconfig }));
  const lines: { level: number; msg: string }[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as { level: number; msg: string }) });
  const reporter = new StatusReporter({ client, identity: controllerIdentity(env, undefined), ingress: () => undefined, settings, logger });
  reporter.start();
  await reporter.stop();
  await client.close();
  return lines.filter((line) => line.level === pino.levels.values['warn']).map((line) => line.msg);
}

test('without POD_NAMESPACE, one warning names the Lease it falls back to and how to set it', async () => {
  const warnings = (await warningsAtStart({})).filter((msg) => msg.includes('POD_NAMESPACE'));
  assert.equal(warnings.length, 1);
  assert.match(
    warnings[0] ?? '',
    /^POD_NAMESPACE is not set: the leader-election Lease is default\/status-reporter-test \(no setting: the default\)\. In a pod, set POD_NAMESPACE from the downward API/,
  );
});

test('with POD_NAMESPACE, nothing is said about it', async () => {
  assert.deepEqual(
    (await warningsAtStart({ POD_NAMESPACE: 'portico' })).filter((msg) => msg.includes('POD_NAMESPACE')),
    [],
  );
});
