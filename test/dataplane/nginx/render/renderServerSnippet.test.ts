// server-snippet as rendered: the host's line, in its server block only, traced to its Ingress; never more than one line.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { originOfLine } from '../../../../src/dataplane/nginx/render/configOrigins.js';
import { renderNginxConf, renderTracedNginxConf } from '../../../../src/dataplane/nginx/render/renderNginxConf.js';
import type { Configuration, Server } from '../../../../src/model/types.js';
import { configuration, ingressRef, location, server } from './fixtures.js';
import { missingNginx, nginxSyntaxCheck } from './nginxPrefix.js';
import { parseNginxConf } from './nginxConfTokenizer.js';
import { argsOf } from './parsedTree.js';
import { HOSTILE_STRINGS, context, serverMatching, web } from './hostileValues.js';

const SNIPPET = 'add_header X-Server-Snippet "on" always;';

function withSnippet(snippet: string): Configuration {
  const host: Server = {
    ...server('a.example.com', [location('/', 'prefix', web.name)]),
    serverSnippet: { ingress: ingressRef('app', 'owner'), snippet },
  };
  return configuration({ servers: [host, server('b.example.com', [location('/', 'prefix', web.name)])], backends: [web] });
}

test("the snippet is a line of the host's server block, and of no other", () => {
  const tree = parseNginxConf(renderNginxConf(withSnippet(SNIPPET), context));
  assert.deepEqual(argsOf(serverMatching(tree, 'a.example.com'), 'add_header'), [['X-Server-Snippet', 'on', 'always']]);
  assert.deepEqual(argsOf(serverMatching(tree, 'b.example.com'), 'add_header'), []);
});

test("the snippet's line is traced to its Ingress (a refusal by nginx names it)", () => {
  const { config, origins } = renderTracedNginxConf(withSnippet(SNIPPET), context);
  const lines = config.text.split('\n').flatMap((line, index) => (line.trim() === SNIPPET ? [index + 1] : []));
  assert.equal(lines.length, 1);
  assert.deepEqual(originOfLine(config, origins, lines[0] ?? 0), { kind: 'ingress', ingress: ingressRef('app', 'owner') });
});

test('a snippet of more than one line is refused by the builder (the model refuses control characters first)', () => {
  for (const value of HOSTILE_STRINGS.filter((candidate) => /[\n\r]/.test(candidate))) {
    assert.throws(() => renderNginxConf(withSnippet(value), context), /one line/);
  }
});

test('passes nginx -t', { skip: missingNginx }, async () => {
  await nginxSyntaxCheck(renderNginxConf(withSnippet(SNIPPET), context), context);
});
