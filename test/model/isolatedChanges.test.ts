// Runs from the last result after changes of isolated Ingresses
// (memo/isolatedChanges.ts) against runs from scratch: a seeded run of random
// changes to a cluster of many hosts and Services, so that most Ingresses share
// none; after each, the memoized result (configuration, problems, warnings) must
// deep-equal the one from scratch, and many of them must have been made from
// the last result.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { IngressAcceptance } from '../../src/controller/ingressAcceptance.js';
import type { Ingress } from '../../src/kube/objects.js';
import { buildConfiguration, type AcceptedIngress, type ModelInput } from '../../src/model/buildConfiguration.js';
import { ModelMemo } from '../../src/model/memo/modelMemo.js';
import { ANNOTATIONS, PREFIX, RandomCluster, type RandomClusterSpread } from '../support/randomCluster.js';
import { selfSignedCertificate } from '../support/tlsSecrets.js';
import { accepted, annotated, build, DEFAULT_ANNOTATIONS, ingress, service, slice, world } from './modelTestSupport.js';

const SEED = 1803;
/** Besides the usual: an alias and a default-backend that name one of the hosts and Services other Ingresses use. */
const MORE_ANNOTATIONS: ReadonlyArray<Record<string, string>> = [
  { 'server-alias': 'h3.test.example' },
  { 'server-alias': 'www.h4.test.example' },
  { 'custom-http-errors': '503', 'default-backend': 'svc-2' },
];
const STEPS = 600;

/** Runs the seeded changes; returns how many Ingress changes there were and how many runs the memo made from the last result. */
async function compareRuns(seed: number, spread: RandomClusterSpread): Promise<{ ingressChanges: number; applied: number }> {
  const certificates = [await selfSignedCertificate(['*.test.example']), await selfSignedCertificate(['h1.test.example'])];
  const cluster = new RandomCluster(seed, certificates, [...ANNOTATIONS, ...MORE_ANNOTATIONS], spread);
  const acceptance = new IngressAcceptance(PREFIX);
  const memo = new ModelMemo();
  let ingressChanges = 0;
  for (let step = 0; step <= STEPS; step++) {
    const change = step === 0 ? 'the first sync' : cluster.change();
    if (change.includes('Ingress')) ingressChanges++;
    const input = cluster.modelInput(acceptance);
    assert.deepStrictEqual(buildConfiguration(input, memo), buildConfiguration(input), `step ${step}: ${change}`);
  }
  return { ingressChanges, applied: memo.isolated.applied };
}

test('a run after isolated Ingress changes gives what a run from scratch gives, after each of many random changes', async () => {
  const { ingressChanges, applied } = await compareRuns(SEED, { hosts: 300, services: 300 });
  // Of the Ingress changes, those of plain Ingresses on their own hosts and Services went the short way: with
  // this seed about one in six (the others use an annotation decided across hosts, a rule without host, a shared
  // host or Service, or were refused).
  assert.ok(applied > ingressChanges / 8, `${applied} of ${ingressChanges} Ingress changes from the last result`);
});

test('a change next to a shared Service, an alias or a www twin is a whole run, or the same result', async () => {
  // Few Services: an Ingress often routes to one another Ingress, the default backend or a default-backend annotation names.
  const { ingressChanges, applied } = await compareRuns(SEED + 1, { hosts: 200, services: 5 });
  // With this seed 13 of 318: most Ingresses share a Service with one that asks for another balancing, or whose
  // backend a run over changed Ingresses alone made (the memo then cannot tell whether its endpoints were refused).
  assert.ok(applied > ingressChanges / 32, `${applied} of ${ingressChanges} Ingress changes from the last result`);
});

/** A fixed world that tells a generation (as the store does), so the memo may start from the last result. */
const SERVICES = ['web', 'api', 'shared', 'bad'].map((name) => service(name, [{ name: 'http', port: 80 }]));
const SLICES = [
  slice('web', [['10.0.0.1', true]], [{ name: 'http', port: 8080 }]),
  slice('bad', [['not-an-address', true]], [{ name: 'http', port: 8080 }]),
];
const LOOKUP: ModelInput['lookup'] = { ...world(SERVICES, SLICES), objectGeneration: () => 0 };

/** Each list of Ingresses built in turn with one memo: each result must be the one from scratch. */
function assertRuns(runs: AcceptedIngress[][], extra: Partial<ModelInput> = {}): void {
  const memo = new ModelMemo();
  for (const [index, ingresses] of runs.entries()) {
    assert.deepStrictEqual(build(ingresses, LOOKUP, extra, memo), build(ingresses, LOOKUP, extra), `run ${index}`);
  }
}

const on = (name: string, host: string | undefined, backend = 'api'): Ingress => ingress(name, host, [['/', 'Prefix', backend]]);

test('a new host that another server answers as its alias or www twin takes the name from it, and gives it back', () => {
  const aliased = annotated(on('aliased', 'a.example', 'web'), { 'server-alias': 'b.example' });
  const twinned = annotated(on('twinned', 'h.example', 'web'), { 'from-to-www-redirect': 'true' });
  const b = accepted(on('b', 'b.example'));
  const www = accepted(on('www', 'www.h.example', 'shared'));
  assertRuns([
    [aliased, twinned],
    [aliased, twinned, b],
    [aliased, twinned, b, www],
    [aliased, twinned, www],
    [aliased, twinned],
  ]);
});

test("a Service another Ingress's default-backend names stays a backend when the Ingress routing to it goes", () => {
  const errors = annotated(on('errors', 'e.example', 'web'), { 'custom-http-errors': '503', 'default-backend': 'shared' });
  const routing = accepted(on('routing', 'r.example', 'shared'));
  // An Ingress's balancing is its backends' while it routes to them; without one, the settings'.
  const balancing = annotated(on('balancing', 'b.example', 'shared'), { 'load-balance': 'ewma' });
  assertRuns([[errors, routing], [errors], [errors, routing], [errors, routing, balancing], [errors, balancing], [errors]]);
});

test('a rule without a host meets the catch-all of a ruleless Ingress', () => {
  const ruleless = accepted(ingress('ruleless', undefined, [], { defaultBackend: { service: { name: 'web', port: { number: 80 } } } }));
  const hostless = accepted(on('hostless', undefined));
  assertRuns([[ruleless], [ruleless, hostless], [ruleless]]);
});

test('a backend whose endpoints were left out is told while an Ingress routes to it, and not after', () => {
  const other = accepted(on('other', 'o.example', 'web'));
  const routing = accepted(on('routing', 'r.example', 'bad'));
  const result = build([other, routing], LOOKUP);
  assert.ok(
    result.warnings.some((warning) => warning.includes('not-an-address')),
    JSON.stringify(result.warnings),
  );
  assertRuns([[other, routing], [other], [other, routing]]);
});

test('a ruleless Ingress claims the catch-all, and a stream-snippet joins the stream block', () => {
  const other = accepted(on('other', 'o.example', 'web'));
  const ruleless = accepted(ingress('ruleless', undefined, [], { defaultBackend: { service: { name: 'api', port: { number: 80 } } } }));
  // Parsed only with snippets allowed: the annotation's value as the parser gives it.
  const snippet: AcceptedIngress = {
    ingress: on('snippet', 's.example'),
    annotations: { ...DEFAULT_ANNOTATIONS, streamSnippet: 'server { listen 9000; }' },
  };
  assertRuns([[other], [other, ruleless], [other], [other, snippet], [other]]);
});

test('each run from the last result leaves what the next one checks as a whole run would', () => {
  const other = accepted(on('other', 'o.example', 'web'));
  const first = accepted(on('first', 'h.example'));
  const second = accepted(on('second', 'h.example', 'shared'));
  const memo = new ModelMemo();
  const runs = [[other], [other, first], [other], [other, second], [other, second, first], [other, first]];
  for (const [index, ingresses] of runs.entries())
    assert.deepStrictEqual(build(ingresses, LOOKUP, {}, memo), build(ingresses, LOOKUP), `run ${index}`);
  // Adding, deleting, adding on the host it left: from the last result; then two Ingresses on one host: whole runs.
  assert.equal(memo.isolated.applied, 3);
});

describe('Ingresses that share a Service with others', () => {
  const other = (balancing: Record<string, string> = {}): AcceptedIngress => annotated(on('other', 'o.example', 'shared'), balancing);

  test('a backend made again by a run from the last result has the balancing of its new Ingresses', () => {
    const web = (name: string, annotations: Record<string, string>): AcceptedIngress =>
      annotated(on(name, `${name}.example`, 'web'), annotations);
    const first = web('first', {});
    const ewma = web('ewma', { 'load-balance': 'ewma' });
    const late = web('late', {});
    const both = [web('both-a', { 'load-balance': 'ewma' }), web('both-b', {})];
    const plain = other();
    assertRuns([[plain, first], [plain], [plain, ...both], [plain, ...both, late], [plain], [plain, ewma], [plain, ewma, late]]);
  });

  test('go the short way while every Ingress on the Service asks for the same balancing, and each keeps its count', () => {
    const memo = new ModelMemo();
    const first = accepted(on('first', 'f.example', 'web'));
    const second = accepted(on('second', 's.example', 'web'));
    const plain = other();
    const runs = [[plain], [plain, first], [plain, first, second], [plain, second], [plain]];
    for (const [index, ingresses] of runs.entries())
      assert.deepStrictEqual(build(ingresses, LOOKUP, {}, memo), build(ingresses, LOOKUP), `run ${index}`);
    // The first Ingress on web makes it; the second is a whole run (web was made by a run over the changed Ingresses
    // alone, so the memo cannot tell whether its endpoints were refused); the deletions find it as it was.
    assert.equal(memo.isolated.applied, 3);
  });

  test('a different balancing, an affinity, a service-upstream or a refused endpoint on it is a whole run, or the same result', () => {
    const shared = (name: string, annotations: Record<string, string>): AcceptedIngress =>
      annotated(on(name, `${name}.example`, 'shared'), annotations);
    const settings: Array<Record<string, string>> = [
      { 'load-balance': 'ewma' },
      { affinity: 'cookie' },
      { 'service-upstream': 'true' },
      {},
    ];
    for (const annotations of settings) {
      const joining = shared('joining', annotations);
      const agreeing = shared('agreeing', annotations);
      // Each Ingress one object throughout: a new object is a changed Ingress, made again with the others.
      const [plain, alike] = [other(), other(annotations)];
      assertRuns([[plain], [plain, joining], [plain], [alike], [alike, agreeing], [alike, agreeing, shared('second', {})], [alike]]);
    }
    const loopback = { guard: { porticoPorts: [], interfaceAddresses: [], refuseLoopbackEverywhere: true }, externalNames: true };
    const refusing: ModelInput['lookup'] = {
      ...world(SERVICES, [slice('shared', [['127.0.0.1', true]], [{ name: 'http', port: 8080 }])]),
      objectGeneration: () => 0,
    };
    const memo = new ModelMemo();
    const plain = other();
    for (const ingresses of [[plain], [plain, shared('joining', {})], [plain]])
      assert.deepStrictEqual(
        build(ingresses, refusing, { endpoints: loopback }, memo),
        build(ingresses, refusing, { endpoints: loopback }),
      );
  });
});
