import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseFirstLoad, parseInParallel, splitBySize } from '../../../src/sources/manifests/parallelParse.js';
import { parseManifests } from '../../../src/sources/manifests/parseManifests.js';
import type { ManifestText } from '../../../src/sources/manifests/manifestFileCache.js';

// Files of every shape parseManifests reads: objects, errors with positions, List documents,
// Secrets with stringData, YAML 1.1 scalars, and a binary value (a Uint8Array, which JSON would lose).
const TEXTS: ManifestText[] = [
  { path: 'a/service.yaml', text: 'apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  ports: [{port: 80}]\n' },
  {
    path: 'a/list.yaml',
    text:
      'apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: one}\n  data: {on: "yes"}\n' +
      '- kind: Nothing\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: two, labels: {a: 1}}\n',
  },
  {
    path: 'b/secret.yaml',
    text: 'apiVersion: v1\nkind: Secret\nmetadata: {name: s, namespace: n}\nstringData: {password: hunter2}\ndata: {x: eA==}\n',
  },
  {
    path: 'b/broken.yaml',
    text: 'apiVersion: v1\nkind: Service\nmetadata:\n  name: [oops\n---\napiVersion: v1\nkind: Service\nmetadata: {name: after}\n',
  },
  {
    path: 'c/yaml11.yaml',
    text: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\nbinaryData: {b: !!binary aGVsbG8=}\ndata: {t: "2001-12-14"}\n',
  },
  {
    path: 'c/values.yaml',
    text: 'apiVersion: v1\nkind: Service\nmetadata: {name: v}\nspec: {weird: [.inf, -.inf, .nan, 0777, yes, off, ~]}\n',
  },
];

const sequential = () => TEXTS.map(({ path, text }) => parseManifests(text, path));

test('the parse on worker threads gives what the parse on this thread gives, in the texts order', async () => {
  const fallbacks: Error[] = [];
  for (const threads of [1, 2, 3, 10]) {
    const parsed = await parseInParallel(TEXTS, (error) => fallbacks.push(error), new AbortController().signal, threads);
    assert.deepStrictEqual(parsed, sequential(), `${threads} threads`);
  }
  assert.deepEqual(fallbacks, []);
  // The clone is not a JSON copy: what JSON cannot carry arrives as it was.
  const [values] = (await parseInParallel(TEXTS.slice(5), () => undefined, new AbortController().signal, 1))[0]!.objects;
  assert.ok(values?.kind === 'Service');
  assert.deepStrictEqual((values.object.spec as { weird: unknown[] }).weird.slice(0, 3), [Infinity, -Infinity, NaN]);
});

test('a worker that fails leaves its share to this thread, and says why', async () => {
  const fallbacks: Error[] = [];
  const missing = new URL('./no-such-worker.js', import.meta.url);
  const parsed = await parseInParallel(TEXTS, (error) => fallbacks.push(error), new AbortController().signal, 2, missing);
  assert.deepStrictEqual(parsed, sequential());
  assert.equal(fallbacks.length, 2);
});

test('an abort ends the workers and returns nothing to use', async () => {
  const stopping = new AbortController();
  const pending = parseInParallel(TEXTS, () => assert.fail('no fallback after an abort'), stopping.signal, 2);
  stopping.abort();
  assert.deepEqual(await pending, []);
});

test('the first load of a small folder is parsed on this thread, in slices, with the same result', async () => {
  assert.deepStrictEqual(await parseFirstLoad(TEXTS, () => assert.fail('no workers'), new AbortController().signal), sequential());
});

test('shares are split by size', () => {
  const texts = [5, 1, 4, 2, 3, 3].map((size, i) => ({ path: String(i), text: 'x'.repeat(size) }));
  const shares = splitBySize(texts, 2);
  assert.deepEqual(
    shares.map((share) => share.reduce((sum, index) => sum + texts[index]!.text.length, 0)),
    [9, 9],
  );
  assert.deepEqual(shares.flat().sort(), [0, 1, 2, 3, 4, 5]);
  assert.deepEqual(splitBySize(texts.slice(0, 1), 4), [[0]]);
});
