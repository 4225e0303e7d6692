// Affinity per Ingress path, as ingress-nginx: a backend's cookie is set only
// on the locations of Ingresses that ask for affinity (test/e2e/annotations/affinity.go,
// "should not set affinity across all server locations when using separate ingresses").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { liveStateOf, type LiveBackend } from '../../src/dataplane/live/liveState.js';
import { annotated, backendOf, build, ingress, problemsOf } from './modelTestSupport.js';

const affinityOf = (result: ReturnType<typeof build>, name: string) => backendOf(result, name)?.balancing.affinity;

test('two Ingresses to one Service: only the paths of the one with affinity set the cookie', () => {
  const result = build([
    annotated(ingress('ingress1', 'separate.foo.com', [['/foo/bar', 'Prefix', 'web']]), { affinity: 'cookie' }),
    annotated(ingress('ingress2', 'separate.foo.com', [['/foo', 'Prefix', 'web']]), {}),
  ]);
  assert.deepEqual(affinityOf(result, 'app/web:80')?.locations, { 'separate.foo.com': ['/foo/bar'] });
  assert.deepEqual(problemsOf(result), [], 'an Ingress without affinity asks for none: no conflict');
});

test('the older Ingress without affinity: the newer one still gets its affinity, on its own paths', () => {
  const result = build([
    annotated(ingress('plain', 'h.example', [['/foo', 'Prefix', 'web']]), {}),
    annotated(ingress('sticky', 'h.example', [['/foo/bar', 'Prefix', 'web']]), { affinity: 'cookie', 'session-cookie-name': 'S' }),
  ]);
  const affinity = affinityOf(result, 'app/web:80');
  assert.equal(affinity?.cookie.name, 'S');
  assert.deepEqual(affinity?.locations, { 'h.example': ['/foo/bar'] });
  assert.deepEqual(problemsOf(result), []);
});

test('one Ingress, several paths and hosts: each of its locations sets the cookie', () => {
  const result = build([
    annotated(
      ingress('a', 'one.example', [
        ['/something', 'Prefix', 'web'],
        ['/somewhereelse', 'Exact', 'web'],
      ]),
      { affinity: 'cookie' },
    ),
    annotated(ingress('b', undefined, [['/', 'Prefix', 'web']]), { affinity: 'cookie' }),
  ]);
  assert.deepEqual(affinityOf(result, 'app/web:80')?.locations, { _: ['/'], 'one.example': ['/something', '/somewhereelse'] });
});

test("a sticky canary shares its primary's scope; the live document carries it", () => {
  const result = build([
    annotated(ingress('prod', 'h.example', [['/', 'Prefix', 'web']]), { affinity: 'cookie' }),
    annotated(ingress('beta', 'h.example', [['/', 'Prefix', 'web-beta']]), { canary: 'true', 'canary-weight': '50' }),
  ]);
  assert.deepEqual(affinityOf(result, 'app/web-beta:80')?.locations, { 'h.example': ['/'] });
  const { backends } = JSON.parse(liveStateOf(result.configuration, new Set()).backends) as { backends: LiveBackend[] };
  assert.deepEqual(
    backends.map((backend) => backend.affinity?.locations),
    [{ 'h.example': ['/'] }, { 'h.example': ['/'] }],
  );
});

test('session-cookie-secure "false" leaves Secure to the scheme (null), as ingress-nginx; "true" forces it', () => {
  const secureOf = (value: string | undefined): unknown => {
    const annotations: Record<string, string> = { affinity: 'cookie', ...(value === undefined ? {} : { 'session-cookie-secure': value }) };
    const result = build([annotated(ingress('s', 'h.example', [['/', 'Prefix', 'web']]), annotations)]);
    const { backends } = JSON.parse(liveStateOf(result.configuration, new Set()).backends) as { backends: LiveBackend[] };
    return backends[0]?.affinity?.cookie.secure;
  };
  assert.equal(secureOf('false'), null);
  assert.equal(secureOf(undefined), null);
  assert.equal(secureOf('true'), true);
});
