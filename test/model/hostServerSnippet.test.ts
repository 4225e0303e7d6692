import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AcceptedIngress } from '../../src/model/buildConfiguration.js';
import { accepted, build, ingress } from './modelTestSupport.js';

/** The model's input for an Ingress whose annotations were admitted with this server-snippet (snippets need the ConfigMap's consent). */
function withServerSnippet(name: string, host: string, path: string, snippet: string | undefined): AcceptedIngress {
  const plain = accepted(ingress(name, host, [[path, 'Prefix', 'web']]));
  const location = snippet === undefined ? plain.annotations.location : { ...plain.annotations.location, serverSnippet: snippet };
  return { ...plain, annotations: { ...plain.annotations, location } };
}

const serverOf = (result: ReturnType<typeof build>, host: string) =>
  result.configuration.servers.find((server) => server.hostname === host);

test("the host's oldest Ingress with a server-snippet supplies it; a newer one's is not applied, with a Warning on that one", () => {
  const result = build([
    withServerSnippet('plain', 'a.example', '/plain', undefined),
    withServerSnippet('older', 'a.example', '/older', 'add_header X-Older 1;'),
    withServerSnippet('newer', 'a.example', '/newer', 'add_header X-Newer 1;'),
    withServerSnippet('other', 'b.example', '/', 'add_header X-Other 1;'),
  ]);
  assert.deepEqual(serverOf(result, 'a.example')?.serverSnippet, {
    ingress: { namespace: 'app', name: 'older' },
    snippet: 'add_header X-Older 1;',
  });
  assert.equal(serverOf(result, 'b.example')?.serverSnippet?.snippet, 'add_header X-Other 1;');
  assert.deepEqual(
    result.problems.map((problem) => [problem.ingress.name, problem.severity, problem.reason]),
    [['newer', 'warning', 'ServerSnippetIgnored']],
  );
  assert.match(result.problems[0]?.message ?? '', /app\/older/);
});

test('a host without a server-snippet has none', () => {
  const result = build([withServerSnippet('plain', 'a.example', '/', undefined)]);
  assert.equal('serverSnippet' in (serverOf(result, 'a.example') ?? {}), false);
  assert.deepEqual(result.problems, []);
});

test('one Ingress with several paths of the host is one snippet, no Warning', () => {
  const two = withServerSnippet('two', 'a.example', '/x', 'add_header X-Two 1;');
  const spec = {
    ...two.ingress.spec,
    rules: [
      {
        host: 'a.example',
        http: {
          paths: [
            ...(two.ingress.spec?.rules?.[0]?.http?.paths ?? []),
            { path: '/y', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } },
          ],
        },
      },
    ],
  };
  const result = build([{ ...two, ingress: { ...two.ingress, spec } }]);
  assert.equal(serverOf(result, 'a.example')?.serverSnippet?.snippet, 'add_header X-Two 1;');
  assert.deepEqual(result.problems, []);
});
