/**
 * Admission webhook latency with 100 and 5,000 existing Ingresses:
 *   node --import tsx bench/admission.ts [--reviews 2000]
 *
 * Per size, a Store is filled from the synthetic cluster and accepted as the
 * sync loop accepts it; the webhook's HTTPS server (the one `--validating-webhook`
 * starts, with a real certificate) runs in this process, and a client sends
 * AdmissionReviews one after another over one keep-alive TLS connection, as the
 * API server does. The reviews mix new Ingresses (of the synthetic shape: TLS,
 * annotations, regex mode), updates of existing ones (with oldObject) and
 * copies of existing ones under a new name (denied: their host+path is taken).
 * Latency is from the first byte sent to the last byte received, client side;
 * the time reviewIngress itself takes is printed beside it, and the longest
 * garbage collection pause, since client, server and collector share one
 * thread (and the machine's cores are shared with whatever else runs). The
 * host+path index is timed apart: built at the first review after the first
 * sync, then updated after a sync in which one Ingress changed.
 *
 * Baseline, side by side: the same check done the way ingress-nginx does it
 * (minus rendering the template), a full buildConfiguration of every accepted
 * Ingress plus the candidate, per review.
 */
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance, PerformanceObserver } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { LiveAdmissionContext } from '../src/admission/liveAdmissionContext.js';
import { reviewIngress } from '../src/admission/reviewIngress.js';
import { startWebhookServer } from '../src/admission/webhookServer.js';
import { IngressAcceptance } from '../src/controller/ingressAcceptance.js';
import type { Ingress } from '../src/kube/objects.js';
import { silentLogger } from '../src/log/logger.js';
import { parseIngressAnnotations } from '../src/model/annotations/parseIngressAnnotations.js';
import { buildConfiguration, type ModelInput } from '../src/model/buildConfiguration.js';
import { DEFAULT_SETTINGS } from '../src/model/settings/globalSettings.js';
import { Store } from '../src/store/store.js';
import { createTestCertificates } from '../test/support/testCertificates.js';
import { describeMachine } from './support/machine.js';
import { positiveInteger } from './support/options.js';
import { median, percentile } from './support/statistics.js';
import {
  ANNOTATIONS_PREFIX,
  STORE_SETTINGS,
  syntheticCluster,
  wildcardCertificate,
  type SyntheticCluster,
} from './support/syntheticCluster.js';
import { figure, printTable } from './support/table.js';

const SIZES = [100, 5_000];
/** New Ingresses available as candidates (beyond the existing ones). */
const CANDIDATES = 200;
const WARMUP_REVIEWS = 300;
const BASELINE_REVIEWS = 20;
const INDEX_UPDATES = 21;
/** Each review must answer within this, or the benchmark fails (the API server's default webhook timeout). */
const REVIEW_TIMEOUT_MS = 10_000;

interface SizeResult {
  ingresses: number;
  /** Building the host+path index at the first review after the first sync. */
  indexMs: number;
  /** Bringing it up to date at the first review after a sync in which one Ingress changed (median). */
  indexUpdateMs: number;
  reviewMs: number[];
  /** The same reviews, server side: reviewIngress alone (no TLS, HTTP, JSON). */
  judgeMs: number[];
  /** Garbage collection pauses during the measured reviews. */
  gcMaxMs: number;
  denied: number;
  conflicts: number;
  baselineMs: number[];
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { reviews: { type: 'string', default: '2000' } } });
  const reviews = positiveInteger('--reviews', values.reviews);
  process.stdout.write(`machine before: ${describeMachine()}\n\n`);
  const dir = await mkdtemp(join(tmpdir(), 'portico-bench-admission-'));
  try {
    const pki = await createTestCertificates(dir);
    const tls = { certificate: await readFile(pki.servingCert), key: await readFile(pki.servingKey), ca: await readFile(pki.caCert) };
    const wildcard = await wildcardCertificate();
    const results: SizeResult[] = [];
    for (const size of SIZES) results.push(await measure(size, reviews, syntheticCluster(size + CANDIDATES, wildcard), tls));
    printTable(
      [
        'existing Ingresses',
        'reviews (denied)',
        'p50 ms',
        'p99 ms',
        'max ms',
        'reviewIngress p50 / p99 ms',
        'longest GC pause ms',
        `index: build / update after a sync (median of ${INDEX_UPDATES}), ms`,
        `full rebuild p50 / p99 ms (baseline, ${BASELINE_REVIEWS} reviews)`,
        'p99 ratio',
      ],
      results.map((r) => [
        figure(r.ingresses),
        `${figure(r.reviewMs.length)} (${figure(r.denied)})`,
        figure(median(r.reviewMs), 2),
        figure(percentile(r.reviewMs, 99), 2),
        figure(Math.max(...r.reviewMs), 2),
        `${figure(median(r.judgeMs), 2)} / ${figure(percentile(r.judgeMs, 99), 2)}`,
        figure(r.gcMaxMs, 1),
        `${figure(r.indexMs, 1)} / ${figure(r.indexUpdateMs, 2)}`,
        `${figure(median(r.baselineMs), 1)} / ${figure(percentile(r.baselineMs, 99), 1)}`,
        `${figure(percentile(r.baselineMs, 99) / percentile(r.reviewMs, 99), 0)}×`,
      ]),
    );
    for (const r of results) {
      if (r.denied !== r.conflicts)
        throw new Error(`${r.ingresses}: ${r.denied} reviews denied, ${r.conflicts} expected (the conflicting copies)`);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  process.stdout.write(`\nmachine after: ${describeMachine()}\n`);
}

async function measure(
  size: number,
  reviews: number,
  cluster: SyntheticCluster,
  tls: { certificate: Buffer; key: Buffer; ca: Buffer },
): Promise<SizeResult> {
  const store = new Store(STORE_SETTINGS);
  store.sink('IngressClass').replace(cluster.ingressClasses);
  store.sink('Service').replace(cluster.services);
  store.sink('EndpointSlice').replace(cluster.endpointSlices);
  store.sink('Secret').replace(cluster.secrets);
  const existing = cluster.ingresses.slice(0, size);
  const candidates = cluster.ingresses.slice(size);
  store.sink('Ingress').replace(existing);
  const settings = DEFAULT_SETTINGS;
  const defaults = parseIngressAnnotations(undefined, { prefix: ANNOTATIONS_PREFIX, settings });
  if (!defaults.ok) throw new Error('default annotations do not parse');
  const acceptance = new IngressAcceptance(ANNOTATIONS_PREFIX);
  let input: ModelInput = {
    ingresses: acceptance.update(store.ingresses(), settings).accepted,
    lookup: store,
    settings,
    defaultAnnotations: defaults.value.location,
    endpoints: { guard: { porticoPorts: [], interfaceAddresses: [], refuseLoopbackEverywhere: false }, externalNames: true },
  };
  const live = new LiveAdmissionContext({ store, storeSettings: STORE_SETTINGS, watchNamespace: '', lastInput: () => input });
  const timed = (action: () => void): number => {
    const started = performance.now();
    action();
    return performance.now() - started;
  };
  const indexMs = timed(() => live.current());
  // Syncs as the sync loop makes them after one Ingress changed: the acceptance keeps every other version's object.
  const updateMs: number[] = [];
  for (let sync = 0; sync < INDEX_UPDATES; sync++) {
    const changed = existing[(sync * 101) % existing.length]!;
    store
      .sink('Ingress')
      .upsert({ ...changed, metadata: { ...changed.metadata, resourceVersion: `changed-${sync}`, labels: { sync: String(sync) } } });
    input = { ...input, ingresses: acceptance.update(store.ingresses(), settings).accepted };
    updateMs.push(timed(() => live.current()));
  }
  const indexUpdateMs = median(updateMs);
  const judgeMs: number[] = [];
  const server = await startWebhookServer({
    address: { host: '127.0.0.1', port: 0 },
    certificate: tls.certificate,
    key: tls.key,
    logger: silentLogger(),
    review: (ingress) => {
      const context = live.current();
      if (!context) throw new Error('no sync');
      const started = performance.now();
      const verdict = reviewIngress(ingress, context);
      judgeMs.push(performance.now() - started);
      return verdict;
    },
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  const agent = new Agent({ keepAlive: true, maxSockets: 1, ca: tls.ca });
  try {
    const send = (body: string) => post(agent, address.port, body);
    const bodies = reviewBodies(WARMUP_REVIEWS + reviews, existing, candidates);
    const reviewMs: number[] = [];
    let denied = 0;
    let conflicts = 0;
    let gcMaxMs = 0;
    const gc = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) gcMaxMs = Math.max(gcMaxMs, entry.duration);
    });
    for (const [index, { body, conflict }] of bodies.entries()) {
      if (index === WARMUP_REVIEWS) {
        judgeMs.length = 0;
        gc.observe({ entryTypes: ['gc'] });
      }
      const started = performance.now();
      const allowed = await send(body);
      const elapsed = performance.now() - started;
      if (index < WARMUP_REVIEWS) continue;
      reviewMs.push(elapsed);
      if (!allowed) denied++;
      if (conflict) conflicts++;
    }
    gc.disconnect();
    const baselineMs: number[] = [];
    for (const candidate of candidates.slice(0, BASELINE_REVIEWS)) {
      const started = performance.now();
      const verdict = parseIngressAnnotations(candidate.metadata?.annotations, { prefix: ANNOTATIONS_PREFIX, settings });
      if (!verdict.ok) throw new Error('a candidate does not parse');
      buildConfiguration({ ...input, ingresses: [...input.ingresses, { ingress: candidate, annotations: verdict.value }] });
      baselineMs.push(performance.now() - started);
    }
    return { ingresses: size, indexMs, indexUpdateMs, reviewMs, judgeMs, gcMaxMs, denied, conflicts, baselineMs };
  } finally {
    agent.destroy();
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
  }
}

/** Every 10th review: an update of an existing Ingress; every 10th (offset 5): an existing one copied under a new name. */
function reviewBodies(count: number, existing: readonly Ingress[], candidates: readonly Ingress[]): { body: string; conflict: boolean }[] {
  return Array.from({ length: count }, (_, i) => {
    const old = existing[(i * 7919) % existing.length]!;
    if (i % 10 === 0) {
      const updated = { ...old, metadata: { ...old.metadata, resourceVersion: `${i}-update`, labels: { release: String(i) } } };
      return { body: reviewBody(i, 'UPDATE', updated, old), conflict: false };
    }
    if (i % 10 === 5) {
      const copy = {
        ...old,
        metadata: { ...old.metadata, name: `${old.metadata?.name}-copy-${i}`, creationTimestamp: new Date().toISOString() },
      };
      return { body: reviewBody(i, 'CREATE', copy), conflict: true };
    }
    return { body: reviewBody(i, 'CREATE', candidates[i % candidates.length]!), conflict: false };
  });
}

/** An AdmissionReview as kube-apiserver sends it. */
function reviewBody(i: number, operation: 'CREATE' | 'UPDATE', object: Ingress, oldObject?: Ingress): string {
  return JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      kind: { group: 'networking.k8s.io', version: 'v1', kind: 'Ingress' },
      resource: { group: 'networking.k8s.io', version: 'v1', resource: 'ingresses' },
      requestKind: { group: 'networking.k8s.io', version: 'v1', kind: 'Ingress' },
      requestResource: { group: 'networking.k8s.io', version: 'v1', resource: 'ingresses' },
      name: object.metadata?.name,
      namespace: object.metadata?.namespace,
      operation,
      userInfo: { username: 'system:serviceaccount:ci:deployer', uid: 'u', groups: ['system:serviceaccounts', 'system:authenticated'] },
      object: { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', ...object },
      ...(oldObject ? { oldObject: { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', ...oldObject } } : {}),
      dryRun: false,
      options: { apiVersion: 'meta.k8s.io/v1', kind: operation === 'CREATE' ? 'CreateOptions' : 'UpdateOptions' },
    },
  });
}

/** One review; resolves with its `allowed`. */
function post(agent: Agent, port: number, body: string): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/networking/v1/ingresses',
        agent,
        timeout: REVIEW_TIMEOUT_MS,
        headers: { 'content-type': 'application/json' },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          if (response.statusCode !== 200)
            return reject(new Error(`HTTP ${response.statusCode}: ${Buffer.concat(chunks).toString().slice(0, 200)}`));
          resolve((JSON.parse(Buffer.concat(chunks).toString()) as { response: { allowed: boolean } }).response.allowed);
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${REVIEW_TIMEOUT_MS} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

await main();
