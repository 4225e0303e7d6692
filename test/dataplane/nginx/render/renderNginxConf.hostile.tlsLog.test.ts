// Hostile values in the per-host TLS cipher fields (ssl-ciphers, ssl-prefer-server-ciphers)
// and the log annotations: see renderNginxConf.hostile.test.ts.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildNginxConf, renderNginxConf } from '../../../../src/dataplane/nginx/render/renderNginxConf.js';
import type { LogAnnotations } from '../../../../src/model/annotations/logAnnotations.js';
import type { HostTlsCiphers } from '../../../../src/model/annotations/tlsCipherAnnotations.js';
import type { Configuration, Location, Server } from '../../../../src/model/types.js';
import { configuration, ingressRef, location, server } from './fixtures.js';
import { missingNginx, nginxSyntaxCheck } from './nginxPrefix.js';
import { parseNginxConf } from './nginxConfTokenizer.js';
import { allDirectives, argsOf, expectedWords, locationOf, serverNamed, skeleton } from './parsedTree.js';
import { context, HOSTILE_STRINGS, web } from './hostileValues.js';

function logging(base: Location, logs: LogAnnotations): Location {
  return { ...base, annotations: { ...base.annotations, logs } };
}

function withCiphers(hostname: string, tlsCiphers: HostTlsCiphers): Server {
  return { ...server(hostname, [location('/', 'prefix', web.name)], { tls: true }), tlsCiphers };
}

describe('hostile cipher lists and Ingress names in ssl-ciphers', () => {
  const scenario = (lists: readonly string[]): Configuration =>
    configuration({
      servers: [
        server('_', []),
        ...lists.map((list, index) =>
          withCiphers(`c${index}.example`, {
            ciphers: { list, ingress: ingressRef(list, list) },
            preferServerCiphers: { prefer: index % 2 === 0, ingress: ingressRef(list, list) },
          }),
        ),
      ],
      backends: [web],
    });
  const hostile = scenario(HOSTILE_STRINGS);
  const tree = parseNginxConf(renderNginxConf(hostile, context));

  test('the structure is that of benign lists, and nginx reads back the builder arguments', () => {
    const benign = HOSTILE_STRINGS.map((_, index) => `benign${index}`);
    assert.deepEqual(skeleton(tree), skeleton(parseNginxConf(renderNginxConf(scenario(benign), context))));
    assert.deepEqual(tree, expectedWords(buildNginxConf(hostile, context)));
  });

  test('each list is the one argument of its host’s ssl_ciphers, literally', () => {
    for (const [index, list] of HOSTILE_STRINGS.entries()) {
      const block = serverNamed(tree, `c${index}.example`);
      assert.deepEqual(argsOf(block, 'ssl_ciphers'), [[list]]);
      assert.deepEqual(argsOf(block, 'ssl_prefer_server_ciphers'), [[index % 2 === 0 ? 'on' : 'off']]);
    }
    assert.ok(!allDirectives(tree).some((directive) => directive.name === 'ssl_engine'));
  });
});

describe('ssl-ciphers, ssl-prefer-server-ciphers and the log annotations rendered', () => {
  const rendered = renderNginxConf(
    configuration({
      servers: [
        server('_', []),
        withCiphers('ciphers.example', { ciphers: { list: 'ECDHE+AESGCM:!aNULL@STRENGTH', ingress: ingressRef('app', 'tls') } }),
        withCiphers('prefer.example', { preferServerCiphers: { prefer: false, ingress: ingressRef('app', 'tls') } }),
        server('logs.example', [
          logging(location('/quiet', 'prefix', web.name), { accessLog: false, rewriteLog: false }),
          logging(location('/rewrites', 'prefix', web.name), { accessLog: true, rewriteLog: true }),
          location('/', 'prefix', web.name),
        ]),
      ],
      backends: [web],
    }),
    context,
  );
  const tree = parseNginxConf(rendered);

  test('only the hosts and locations that ask for them get the directives', () => {
    assert.deepEqual(argsOf(serverNamed(tree, 'ciphers.example'), 'ssl_ciphers'), [['ECDHE+AESGCM:!aNULL@STRENGTH']]);
    assert.deepEqual(argsOf(serverNamed(tree, 'ciphers.example'), 'ssl_prefer_server_ciphers'), []);
    assert.deepEqual(argsOf(serverNamed(tree, 'prefer.example'), 'ssl_ciphers'), []);
    assert.deepEqual(argsOf(serverNamed(tree, 'prefer.example'), 'ssl_prefer_server_ciphers'), [['off']]);
    const logs = serverNamed(tree, 'logs.example');
    assert.deepEqual(argsOf(logs, 'ssl_ciphers'), []);
    assert.deepEqual(argsOf(locationOf(logs, '/quiet/'), 'access_log'), [['off']]);
    assert.deepEqual(argsOf(locationOf(logs, '/quiet/'), 'rewrite_log'), []);
    assert.deepEqual(argsOf(locationOf(logs, '/rewrites/'), 'access_log'), []);
    assert.deepEqual(argsOf(locationOf(logs, '/rewrites/'), 'rewrite_log'), [['on']]);
    assert.deepEqual(argsOf(locationOf(logs, '/'), 'access_log'), []);
    assert.deepEqual(argsOf(locationOf(logs, '/'), 'rewrite_log'), []);
  });

  test('passes nginx -t', { skip: missingNginx }, async () => {
    await nginxSyntaxCheck(rendered, context);
  });
});
