// The model's stream snippets: every served Ingress's stream-snippet, oldest
// first (canaries and Ingresses without rules too, as ingress-nginx's
// getStreamSnippets), each with its Ingress; no stream part without any.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AcceptedIngress } from '../../../src/model/buildConfiguration.js';
import type { Ingress } from '../../../src/kube/objects.js';
import { accepted, annotated, build, ingress } from '../modelTestSupport.js';

function withStreamSnippet(ing: Ingress, snippet: string | undefined, canary = false): AcceptedIngress {
  const plain = canary ? annotated(ing, { canary: 'true', 'canary-weight': '10' }) : accepted(ing);
  return snippet === undefined ? plain : { ...plain, annotations: { ...plain.annotations, streamSnippet: snippet } };
}

test('oldest Ingress first, whatever the input order; each with its Ingress; Ingresses without one add nothing', () => {
  const oldest = withStreamSnippet(ingress('oldest', 'a.example', [['/', 'Prefix', 'web']]), 'server { listen 9001; return "1"; }');
  const plain = withStreamSnippet(ingress('plain', 'b.example', [['/', 'Prefix', 'web']]), undefined);
  const noRules = withStreamSnippet(ingress('no-rules', undefined, []), 'server { listen 9002; return "2"; }');
  const newest = withStreamSnippet(ingress('newest', 'a.example', [['/x', 'Prefix', 'web']]), 'server { listen 9003; return "3"; }');
  const result = build([newest, plain, noRules, oldest]);
  assert.deepEqual(result.configuration.stream?.snippets, [
    { ingress: { namespace: 'app', name: 'oldest' }, snippet: 'server { listen 9001; return "1"; }' },
    { ingress: { namespace: 'app', name: 'no-rules' }, snippet: 'server { listen 9002; return "2"; }' },
    { ingress: { namespace: 'app', name: 'newest' }, snippet: 'server { listen 9003; return "3"; }' },
  ]);
  assert.equal(result.configuration.stream?.services.length, 0);
  assert.equal(result.configuration.stream?.sslPassthrough, false);
});

test("a canary's stream-snippet counts too", () => {
  const primary = withStreamSnippet(ingress('primary', 'a.example', [['/', 'Prefix', 'web']]), undefined);
  const canary = withStreamSnippet(ingress('canary', 'a.example', [['/', 'Prefix', 'web']]), 'server { listen 9004; return "c"; }', true);
  assert.deepEqual(
    build([primary, canary]).configuration.stream?.snippets.map(({ ingress: ref }) => ref.name),
    ['canary'],
  );
});

test('no stream snippet, no TCP/UDP service, no passthrough: no stream part at all', () => {
  const result = build([withStreamSnippet(ingress('plain', 'a.example', [['/', 'Prefix', 'web']]), undefined)]);
  assert.equal('stream' in result.configuration, false);
});
