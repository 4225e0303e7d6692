// ModSecurity with Debian's OWASP CRS 3.3 through the real API server, Portico,
// nginx and an echo backend: ingress-nginx's semantics (detection only until
// a modsecurity-snippet sets `SecRuleEngine On`; the ConfigMap's switches),
// a location of the same host without ModSecurity untouched, and the
// transaction id in nginx's error log and ModSecurity's audit log.
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { sharedControlPlane, createTestNamespace } from '../support/controlPlane.js';
import { eventually } from '../support/eventually.js';
import { echoed, httpGet, type HttpResult } from '../support/httpGet.js';
import {
  applyIngressAndReload,
  createService,
  ingress,
  paths,
  startBackends,
  startE2eCluster,
  type E2eCluster,
} from '../support/e2eCluster.js';

const SETTINGS_NAME = 'portico-settings';
/** Snippets admitted, as ingress-nginx's e2e tests do for modsecurity-snippet. */
const SNIPPETS_ADMITTED = { 'allow-snippet-annotations': 'true', 'annotations-risk-level': 'Critical' };
/** The classic: `?id=1' OR '1'='1`, which the CRS's SQL injection rules (942xxx) score far above the blocking threshold. */
const SQL_INJECTION = `/?id=${encodeURIComponent("1' OR '1'='1")}`;
const CLEAN = '/?id=42';

let cluster: E2eCluster;

before(async () => {
  const plane = await sharedControlPlane();
  const namespace = await createTestNamespace(plane.adminKubeconfig, 'modsecurity');
  cluster = await startE2eCluster('modsecurity', [`--configmap=${namespace}/${SETTINGS_NAME}`], { namespace });
  await cluster.core.createNamespacedConfigMap({ namespace, body: { metadata: { name: SETTINGS_NAME }, data: SNIPPETS_ADMITTED } });
  await createService(cluster, 'echo', await startBackends(cluster, 'echo'));
});
after(() => cluster?.close());

const hostOf = (name: string): string => `${name}.modsecurity.test`;

/**
 * An Ingress for `/<path>` of the host named `host` with these nginx.ingress.kubernetes.io/ annotations, once
 * nginx reloaded with it and the workers of before retired (one would answer without ModSecurity, or 404).
 */
async function applyPath(name: string, host: string, path: string, annotations: Record<string, string>): Promise<void> {
  const prefixed = Object.fromEntries(Object.entries(annotations).map(([key, value]) => [`nginx.ingress.kubernetes.io/${key}`, value]));
  await applyIngressAndReload(
    cluster,
    ingress(cluster, name, { rules: [{ host: hostOf(host), http: { paths: paths([path, 'Prefix', 'echo']) } }] }, prefixed),
  );
}

function send(host: string, path: string, headers: Record<string, string> = {}): Promise<HttpResult> {
  return httpGet({ port: cluster.portico.ports.http, host: hostOf(host), path, headers });
}

/** Waits until `path` of `host` answers `status` (a reload may still be under way), and returns that answer. */
function untilStatus(host: string, path: string, status: number, headers: Record<string, string> = {}): Promise<HttpResult> {
  return eventually(
    async () => {
      const result = await send(host, path, headers);
      assert.equal(result.status, status, `GET ${hostOf(host)}${path}: ${result.body.slice(0, 200)}`);
      return result;
    },
    { timeoutMs: 20_000 },
  );
}

/** A file of Portico's nginx prefix, once it holds `text`. */
function untilLogHas(file: string, text: string): Promise<string> {
  return eventually(
    async () => {
      const content = await readFile(join(cluster.portico.prefix, 'logs', file), 'utf8').catch(() => '');
      const line = content.split('\n').find((candidate) => candidate.includes(text));
      assert.ok(line !== undefined, `${file} has no line with ${text}`);
      return line;
    },
    { timeoutMs: 10_000 },
  );
}

test('CRS with the rule engine on: SQL injection 403, a clean request and a location without ModSecurity 200, the transaction id logged', async () => {
  await applyPath('waf', 'blocking', '/waf', {
    'enable-modsecurity': 'true',
    'enable-owasp-core-rules': 'true',
    'modsecurity-transaction-id': 'portico-$http_x_test_id',
    'modsecurity-snippet': 'SecRuleEngine On',
  });
  await applyPath('open', 'blocking', '/open', {});
  await untilStatus('blocking', `/open${CLEAN}`, 200);
  await untilStatus('blocking', `/waf${SQL_INJECTION}`, 403);

  const clean = echoed(await untilStatus('blocking', `/waf${CLEAN}`, 200));
  assert.equal(clean.path, '/waf/');
  const neighbour = echoed(await untilStatus('blocking', `/open${SQL_INJECTION}`, 200));
  assert.equal(neighbour.path, '/open/');

  const id = randomUUID();
  assert.equal((await send('blocking', `/waf${SQL_INJECTION}`, { 'x-test-id': id })).status, 403);
  const denied = await untilLogHas('error.log', `portico-${id}`);
  assert.match(denied, /ModSecurity: Access denied with code 403/);
  assert.match(denied, new RegExp(`\\[unique_id "portico-${id}"\\]`));
});

test('without a snippet the rule engine only detects, as ingress-nginx: the injection passes, its audit record has the transaction id', async () => {
  await applyPath('detect', 'detecting', '/', {
    'enable-modsecurity': 'true',
    'enable-owasp-core-rules': 'true',
    'modsecurity-transaction-id': 'detected-$http_x_test_id',
  });
  await untilStatus('detecting', CLEAN, 200);
  const id = randomUUID();
  assert.equal((await send('detecting', SQL_INJECTION, { 'x-test-id': id })).status, 200);
  // Portico's modsecurity.conf writes an audit record of each transaction that matched a rule.
  const record = JSON.parse(await untilLogHas('modsec_audit.log', `detected-${id}`)) as {
    transaction?: { unique_id?: string; messages?: { details?: { ruleId?: string } }[] };
  };
  assert.equal(record.transaction?.unique_id, `detected-${id}`);
  const rules = (record.transaction?.messages ?? []).map((message) => message.details?.ruleId ?? '');
  assert.ok(
    rules.some((rule) => rule.startsWith('942')),
    `a SQL injection rule matched: ${rules.join(', ')}`,
  );
  // The anomaly score exceeded the threshold, yet nothing was denied.
  assert.ok(rules.includes('949110'), rules.join(', '));
});

test('the ConfigMap\'s enable-modsecurity and enable-owasp-modsecurity-crs apply to every location; enable-modsecurity "false" opts out', async () => {
  await applyPath('global', 'global', '/', { 'modsecurity-snippet': 'SecRuleEngine On' });
  await applyPath('global-off', 'global', '/off', { 'enable-modsecurity': 'false', 'modsecurity-snippet': 'SecRuleEngine On' });
  await untilStatus('global', SQL_INJECTION, 200);
  await cluster.core.replaceNamespacedConfigMap({
    name: SETTINGS_NAME,
    namespace: cluster.namespace,
    body: {
      metadata: { name: SETTINGS_NAME },
      data: { ...SNIPPETS_ADMITTED, 'enable-modsecurity': 'true', 'enable-owasp-modsecurity-crs': 'true' },
    },
  });
  await untilStatus('global', SQL_INJECTION, 403);
  await untilStatus('global', CLEAN, 200);
  await untilStatus('global', `/off${SQL_INJECTION}`, 200);
});
