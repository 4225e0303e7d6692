// Hostile values in the header keys of the global ConfigMap (add-headers and
// proxy-set-headers entries, hide-headers names): admin-owned, still each one
// whole argument of its directive. See renderNginxConf.hostile.test.ts.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildNginxConf, renderNginxConf } from '../../../../src/dataplane/nginx/render/renderNginxConf.js';
import type { GlobalHeaders } from '../../../../src/model/globalHeaders.js';
import type { GlobalSettings } from '../../../../src/model/settings/globalSettings.js';
import type { Configuration } from '../../../../src/model/types.js';
import { configuration, location, server } from './fixtures.js';
import { context, HOSTILE_STRINGS, LONG, serverMatching, web } from './hostileValues.js';
import { missingNginx, nginxSyntaxCheck } from './nginxPrefix.js';
import { parseNginxConf } from './nginxConfTokenizer.js';
import { appliedArgs, allDirectives, argsOf, expectedWords, locationOf, only, skeleton } from './parsedTree.js';

/** The values nginx interpolates on purpose: the hostile text without its `$` (a stray `$` is refused, below). */
const dollarless = (value: string): string => value.replaceAll('$', '');

function scenario(values: readonly string[], settings: Partial<GlobalSettings> = {}): Configuration {
  const globalHeaders: GlobalHeaders = {
    response: values.map((value, index) => [`X-Hostile-${index}`, dollarless(value)]),
    request: values.map((value, index) => [`X-Hostile-${index}`, dollarless(value)]),
  };
  const config = configuration({ settings, servers: [server('headers.example', [location('/', 'prefix', web.name)])], backends: [web] });
  return { ...config, globalHeaders };
}

describe('hostile values in the header keys of the global ConfigMap', () => {
  const hostile = scenario(HOSTILE_STRINGS);
  const rendered = renderNginxConf(hostile, context);
  const tree = parseNginxConf(rendered);

  test('the structure is that of a benign rendering, and nginx reads back exactly the arguments given', () => {
    const benign = scenario(HOSTILE_STRINGS.map((_, index) => `benign${index}`));
    assert.deepEqual(skeleton(tree), skeleton(parseNginxConf(renderNginxConf(benign, context))));
    assert.deepEqual(tree, expectedWords(buildNginxConf(hostile, context)));
    assert.ok(
      !allDirectives(tree).some(
        (directive) => directive.name === 'ssl_engine' || (directive.name === 'include' && directive.args[0] === '/etc/passwd'),
      ),
    );
  });

  test('each value is one whole argument: `Name: value` of more_set_headers, the value of proxy_set_header', () => {
    const http = only(tree, 'http');
    assert.deepEqual(
      argsOf(http, 'more_set_headers'),
      HOSTILE_STRINGS.map((value, index) => [`X-Hostile-${index}: ${dollarless(value)}`]),
    );
    const root = locationOf(serverMatching(tree, 'headers.example'), '/');
    const sent = Object.fromEntries(appliedArgs(tree, root, 'proxy_set_header').map(([name = '', value = '']) => [name, value]));
    HOSTILE_STRINGS.forEach((value, index) => assert.equal(sent[`X-Hostile-${index}`], dollarless(value)));
  });

  test('passes nginx -t', { skip: missingNginx }, async () => {
    await nginxSyntaxCheck(rendered, context);
  });

  test('a malformed `$`, a header name outside the token characters, an over-long value: refused by the renderer', () => {
    const withHeaders = (globalHeaders: GlobalHeaders, settings: Partial<GlobalSettings> = {}): Configuration => ({
      ...configuration({ settings, servers: [server('headers.example', [location('/', 'prefix', web.name)])], backends: [web] }),
      globalHeaders,
    });
    for (const value of HOSTILE_STRINGS.filter((candidate) => candidate.includes('$'))) {
      assert.throws(
        () => renderNginxConf(withHeaders({ response: [['X-A', value]], request: [] }), context),
        /malformed nginx variable reference/,
      );
      assert.throws(
        () => renderNginxConf(withHeaders({ response: [], request: [['X-A', value]] }), context),
        /malformed nginx variable reference/,
      );
    }
    for (const name of [...HOSTILE_STRINGS.filter((candidate) => candidate !== 'ssl_engine'), LONG, '', 'X-A:']) {
      assert.throws(() => renderNginxConf(withHeaders({ response: [[name, 'v']], request: [] }), context), /invalid header name/);
      assert.throws(() => renderNginxConf(withHeaders({ response: [], request: [[name, 'v']] }), context), /invalid header name/);
      assert.throws(
        () => renderNginxConf(withHeaders({ response: [], request: [] }, { hideHeaders: [name] }), context),
        /invalid header name/,
      );
    }
    assert.throws(() => renderNginxConf(withHeaders({ response: [['X-A', LONG]], request: [] }), context), /too long/);
    assert.throws(() => renderNginxConf(withHeaders({ response: [], request: [['X-A', LONG]] }), context), /too long/);
  });
});
