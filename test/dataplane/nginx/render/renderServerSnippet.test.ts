// server-snippet as rendered: the host's lines, in its server block only, each traced to its Ingress.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { originOfLine } from '../../../../src/dataplane/nginx/render/configOrigins.js';
import { renderNginxConf, renderTracedNginxConf } from '../../../../src/dataplane/nginx/render/renderNginxConf.js';
import type { Configuration, Server } from '../../../../src/model/types.js';
import { configuration, ingressRef, location, server } from './fixtures.js';
import { missingNginx, nginxSyntaxCheck } from './nginxPrefix.js';
import { parseNginxConf } from './nginxConfTokenizer.js';
import { argsOf } from './parsedTree.js';
import { context, serverMatching, web } from './hostileValues.js';

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
  const lines = config.bytes
    .toString()
    .split('\n')
    .flatMap((line, index) => (line.trim() === SNIPPET ? [index + 1] : []));
  assert.equal(lines.length, 1);
  assert.deepEqual(originOfLine(config, origins, lines[0] ?? 0), { kind: 'ingress', ingress: ingressRef('app', 'owner') });
});

const MULTI_LINE = 'add_header X-First "1" always;\r\n\n\tadd_header X-Second "2" always;';

test('a snippet of several lines: each is a line of the server block, traced to its Ingress', () => {
  const { config, origins } = renderTracedNginxConf(withSnippet(MULTI_LINE), context);
  const tree = parseNginxConf(config.bytes.toString());
  assert.deepEqual(argsOf(serverMatching(tree, 'a.example.com'), 'add_header'), [
    ['X-First', '1', 'always'],
    ['X-Second', '2', 'always'],
  ]);
  const lines = config.bytes
    .toString()
    .split('\n')
    .flatMap((line, index) => (/add_header X-(First|Second)/.test(line) ? [index + 1] : []));
  assert.equal(lines.length, 2);
  for (const line of lines) assert.deepEqual(originOfLine(config, origins, line), { kind: 'ingress', ingress: ingressRef('app', 'owner') });
});

test('control characters other than line breaks and tabs are refused by the builder (the model refuses them first)', () => {
  for (const value of ['deny all;\u0000', 'a\u001b[2J', 'lone\rcarriage return', 'del\u007f'])
    assert.throws(() => renderNginxConf(withSnippet(value), context), /control characters/);
});

test('a snippet of several lines passes nginx -t', { skip: missingNginx }, async () => {
  await nginxSyntaxCheck(renderNginxConf(withSnippet(MULTI_LINE), context), context);
});

test('passes nginx -t', { skip: missingNginx }, async () => {
  await nginxSyntaxCheck(renderNginxConf(withSnippet(SNIPPET), context), context);
});
