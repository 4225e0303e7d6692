// The model memoized per object against the model from scratch: a seeded run of
// random changes to a small cluster (Ingresses, annotations, Services,
// endpoints, Secrets, the ConfigMap's settings, the default backend), each
// synced as the controller syncs (store, acceptance, model); after each, the
// memoized run's result (configuration, problems, warnings) must deep-equal the
// run from scratch.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { IngressAcceptance } from '../../src/controller/ingressAcceptance.js';
import { buildConfiguration } from '../../src/model/buildConfiguration.js';
import { ModelMemo } from '../../src/model/memo/modelMemo.js';
import type { Configuration } from '../../src/model/types.js';
import { ANNOTATIONS, PREFIX, RandomCluster } from '../support/randomCluster.js';
import { selfSignedCertificate } from '../support/tlsSecrets.js';
import { accepted, build, ingress } from './modelTestSupport.js';

const SEED = 1018;
const STEPS = 400;
/** Besides the render test's: annotations that name Secrets, and balancing a backend's Ingresses may disagree on. */
const MORE_ANNOTATIONS: ReadonlyArray<Record<string, string>> = [
  { 'auth-type': 'basic', 'auth-secret': 'tls-0' },
  { 'auth-tls-secret': 'app/tls-1' },
  { 'service-upstream': 'true' },
  { 'upstream-hash-by': '$request_uri' },
  { 'proxy-ssl-secret': 'app/tls-0', 'backend-protocol': 'HTTPS' },
];

/** Servers and backends of `configuration` that are the very objects of `previous`: what the memo kept. */
function kept(configuration: Configuration, previous: Configuration | undefined): number {
  const before = new Set<object>([...(previous?.servers ?? []), ...(previous?.backends ?? [])]);
  return [...configuration.servers, ...configuration.backends].filter((part) => before.has(part)).length;
}

test('the memoized model gives what the model from scratch gives, after each of many random changes', async () => {
  const certificates = [await selfSignedCertificate(['*.test.example', 'other.example']), await selfSignedCertificate(['a.test.example'])];
  const cluster = new RandomCluster(SEED, certificates, [...ANNOTATIONS, ...MORE_ANNOTATIONS]);
  const acceptance = new IngressAcceptance(PREFIX);
  const memo = new ModelMemo();
  let previous: Configuration | undefined;
  let reused = 0;
  let parts = 0;
  for (let step = 0; step <= STEPS; step++) {
    const change = step === 0 ? 'the first sync' : cluster.change();
    const input = cluster.modelInput(acceptance);
    const memoized = buildConfiguration(input, memo);
    assert.deepStrictEqual(memoized, buildConfiguration(input), `step ${step}: ${change}`);
    reused += kept(memoized.configuration, previous);
    parts += memoized.configuration.servers.length + memoized.configuration.backends.length;
    previous = memoized.configuration;
  }
  // The run tested the memo only if it kept most parts, and made some again.
  assert.ok(reused > parts / 3 && reused < parts, `kept ${reused} of ${parts} servers and backends`);
});

test("a host's TLS from an Ingress without paths on it is part of the server's memo key", () => {
  // The older Ingress makes the server and its only location; the younger one only makes it TLS (a Secret that
  // does not exist: the default certificate), so the drafts stay the same when it stops doing so.
  const paths = accepted(ingress('paths', 'h.example', [['/', 'Prefix', 'web']]));
  const tlsOnly = { rules: [{ host: 'h.example' }] };
  const withTls = accepted(ingress('tls', undefined, [], { ...tlsOnly, tls: [{ secretName: 'missing' }] }));
  const withoutTls = accepted({ ...withTls.ingress, spec: tlsOnly });
  const memo = new ModelMemo();
  for (const ingresses of [
    [paths, withTls],
    [paths, withoutTls],
    [paths, withTls],
  ]) {
    const memoized = build(ingresses, undefined, {}, memo);
    assert.deepStrictEqual(memoized, build(ingresses));
  }
});
