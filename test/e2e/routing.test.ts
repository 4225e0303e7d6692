// Ingress v1 routing through real nginx to real backends: every row of the
// path table in ingress-spec.md, hosts, classes, named ports, merged
// Ingresses and the 404/503 answers.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../support/eventually.js';
import { echoed, httpGet, type HttpResult } from '../support/httpGet.js';
import {
  applyIngress,
  createService,
  ingress,
  paths,
  setEndpoints,
  startBackends,
  startE2eCluster,
  type E2eCluster,
  type PathSpec,
} from '../support/e2eCluster.js';

let cluster: E2eCluster;

/** Where a request went: the echo service's name, or the HTTP status when no backend answered. */
async function routeOf(host: string, path: string): Promise<string> {
  const result: HttpResult = await httpGet({ port: cluster.portico.ports.http, host, path });
  return result.status === 200 ? echoed(result).service : String(result.status);
}

async function expectRoute(host: string, path: string, expected: string): Promise<void> {
  await eventually(async () => assert.equal(await routeOf(host, path), expected, `${host}${path}`), { timeoutMs: 15_000 });
}

// [rule paths (each to service a, b, c in order), request path, expected service or status]
const PATH_TABLE: readonly [rules: readonly (readonly [string, 'Exact' | 'Prefix'])[], request: string, expected: string][] = [
  [[['/', 'Prefix']], '/anything/at/all', 'a'],
  [[['/foo', 'Exact']], '/foo', 'a'],
  [[['/foo', 'Exact']], '/bar', '404'],
  [[['/foo', 'Exact']], '/foo/', '404'],
  [[['/foo/', 'Exact']], '/foo', '404'],
  [[['/foo', 'Prefix']], '/foo', 'a'],
  [[['/foo', 'Prefix']], '/foo/', 'a'],
  [[['/foo/', 'Prefix']], '/foo', 'a'],
  [[['/foo/', 'Prefix']], '/foo/', 'a'],
  [[['/aaa/bb', 'Prefix']], '/aaa/bbb', '404'],
  [[['/aaa/bbb', 'Prefix']], '/aaa/bbb', 'a'],
  [[['/aaa/bbb/', 'Prefix']], '/aaa/bbb', 'a'],
  [[['/aaa/bbb', 'Prefix']], '/aaa/bbb/', 'a'],
  [[['/aaa/bbb', 'Prefix']], '/aaa/bbb/ccc', 'a'],
  [[['/aaa/bbb', 'Prefix']], '/aaa/bbbxyz', '404'],
  [
    [
      ['/', 'Prefix'],
      ['/aaa', 'Prefix'],
    ],
    '/aaa/ccc',
    'b',
  ],
  [
    [
      ['/', 'Prefix'],
      ['/aaa', 'Prefix'],
      ['/aaa/bbb', 'Prefix'],
    ],
    '/aaa/bbb',
    'c',
  ],
  [
    [
      ['/', 'Prefix'],
      ['/aaa', 'Prefix'],
      ['/aaa/bbb', 'Prefix'],
    ],
    '/ccc',
    'a',
  ],
  [[['/aaa', 'Prefix']], '/ccc', '404'],
  [
    [
      ['/foo', 'Prefix'],
      ['/foo', 'Exact'],
    ],
    '/foo',
    'b',
  ],
  // The query string never takes part; matching is case-sensitive.
  [[['/foo', 'Exact']], '/foo?x=1', 'a'],
  [[['/foo', 'Exact']], '/FOO', '404'],
  [[['/foo', 'Prefix']], '/Foo/bar', '404'],
];

const services = ['a', 'b', 'c'];

before(async () => {
  cluster = await startE2eCluster('routing');
  for (const service of [...services, 'wild', 'exact']) await createService(cluster, service, await startBackends(cluster, service));
  await createService(cluster, 'empty', []);
  await createService(cluster, 'unready', await startBackends(cluster, 'unready'), { ready: false });

  for (const [index, [rules]] of PATH_TABLE.entries()) {
    const specs: PathSpec[] = rules.map(([path, type], i) => [path, type, services[i] ?? 'a']);
    await applyIngress(
      cluster,
      ingress(cluster, `row-${index}`, { rules: [{ host: `row-${index}.paths.test`, http: { paths: paths(...specs) } }] }),
    );
  }
});
after(() => cluster?.close());

describe('the Ingress v1 path table', () => {
  for (const [index, [rules, request, expected]] of PATH_TABLE.entries()) {
    const description = rules.map(([path, type]) => `${type} ${path}`).join(', ');
    test(`${description}: ${request} → ${expected}`, () => expectRoute(`row-${index}.paths.test`, request, expected));
  }

  test('the order of rules in the manifest does not change the outcome', async () => {
    const specs: PathSpec[] = [
      ['/aaa/bbb', 'Prefix', 'c'],
      ['/aaa', 'Prefix', 'b'],
      ['/', 'Prefix', 'a'],
    ];
    await applyIngress(
      cluster,
      ingress(cluster, 'reversed', { rules: [{ host: 'reversed.paths.test', http: { paths: paths(...specs) } }] }),
    );
    await expectRoute('reversed.paths.test', '/aaa/bbb', 'c');
    await expectRoute('reversed.paths.test', '/aaa/ccc', 'b');
    await expectRoute('reversed.paths.test', '/ccc', 'a');
  });
});

describe('hosts', () => {
  before(async () => {
    await applyIngress(
      cluster,
      ingress(cluster, 'wildcard', { rules: [{ host: '*.wild.test', http: { paths: paths(['/', 'Prefix', 'wild']) } }] }),
    );
    await applyIngress(
      cluster,
      ingress(cluster, 'precise', { rules: [{ host: 'exact.wild.test', http: { paths: paths(['/', 'Prefix', 'exact']) } }] }),
    );
  });

  test('a precise host must equal the Host header, compared without its port', async () => {
    await expectRoute('row-0.paths.test', '/', 'a');
    await expectRoute('row-0.paths.test:4321', '/', 'a');
    await expectRoute('ROW-0.Paths.Test', '/', 'a');
  });

  test('a wildcard host matches exactly one label', async () => {
    await expectRoute('one.wild.test', '/', 'wild');
    await expectRoute('two.one.wild.test', '/', '404');
    await expectRoute('wild.test', '/', '404');
  });

  test('a precise host beats a wildcard host', () => expectRoute('exact.wild.test', '/', 'exact'));

  test('an unmatched host gets 404 from Portico', () => expectRoute('nobody.test', '/', '404'));
});

describe('classes, ports, merging, empty backends', () => {
  test('Ingresses of a foreign or unknown class are ignored; the class annotation is honoured', async () => {
    await applyIngress(cluster, {
      metadata: { name: 'foreign' },
      spec: { ingressClassName: 'someone-else', rules: [{ host: 'foreign.test', http: { paths: paths(['/', 'Prefix', 'a']) } }] },
    });
    await applyIngress(cluster, {
      metadata: { name: 'annotated', annotations: { 'kubernetes.io/ingress.class': cluster.className } },
      spec: { rules: [{ host: 'annotated.test', http: { paths: paths(['/', 'Prefix', 'b']) } }] },
    });
    await expectRoute('annotated.test', '/', 'b');
    assert.equal(await routeOf('foreign.test', '/'), '404');
  });

  test('a backend port named instead of numbered', async () => {
    await applyIngress(
      cluster,
      ingress(cluster, 'named-port', { rules: [{ host: 'named.test', http: { paths: paths(['/', 'Prefix', 'c', 'http']) } }] }),
    );
    await expectRoute('named.test', '/x', 'c');
  });

  test('several Ingresses on one host are merged', async () => {
    await applyIngress(
      cluster,
      ingress(cluster, 'merge-1', { rules: [{ host: 'merged.test', http: { paths: paths(['/one', 'Prefix', 'a']) } }] }),
    );
    await applyIngress(
      cluster,
      ingress(cluster, 'merge-2', { rules: [{ host: 'merged.test', http: { paths: paths(['/two', 'Prefix', 'b']) } }] }),
    );
    await expectRoute('merged.test', '/one', 'a');
    await expectRoute('merged.test', '/two', 'b');
  });

  test('the request path and query reach the backend unchanged, with the Host and forwarding headers', async () => {
    const result = await httpGet({ port: cluster.portico.ports.http, host: 'row-0.paths.test', path: '/a//b/%2F/c?x=1&y=%20' });
    const echo = echoed(result);
    assert.equal(echo.path, '/a//b/%2F/c');
    assert.equal(echo.query, 'x=1&y=%20');
    assert.equal(echo.host, 'row-0.paths.test');
    assert.equal(echo.headers['x-forwarded-for'], '127.0.0.1');
    assert.equal(echo.headers['x-forwarded-proto'], 'http');
    assert.equal(echo.headers['x-forwarded-host'], 'row-0.paths.test');
    assert.equal(echo.headers['x-forwarded-port'], String(cluster.portico.ports.http));
    assert.match(echo.headers['x-request-id'] ?? '', /^[0-9a-f]{32}$/);
  });

  test('503 for a Service without ready endpoints, and for an unknown Service', async () => {
    await applyIngress(
      cluster,
      ingress(cluster, 'unavailable', {
        rules: [
          {
            host: 'unavailable.test',
            http: { paths: paths(['/empty', 'Prefix', 'empty'], ['/unready', 'Prefix', 'unready'], ['/missing', 'Prefix', 'missing']) },
          },
        ],
      }),
    );
    await expectRoute('unavailable.test', '/empty', '503');
    await expectRoute('unavailable.test', '/unready', '503');
    await expectRoute('unavailable.test', '/missing', '503');
    // Endpoints turning ready make it answer.
    const [backend] = await startBackends(cluster, 'late');
    assert.ok(backend);
    await setEndpoints(cluster, 'empty', [backend.address]);
    await expectRoute('unavailable.test', '/empty', 'late');
  });
});
