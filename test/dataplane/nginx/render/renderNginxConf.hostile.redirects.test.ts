// Hostile values in the string fields of the redirect annotations (permanent/temporal-redirect's
// URL, app-root): see renderNginxConf.hostile.test.ts. The model admits only the
// ones made of URL characters (redirectAnnotations.ts); the renderer must still keep each one argument.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Redirects } from '../../../../src/model/annotations/redirectAnnotations.js';
import { buildNginxConf, renderNginxConf } from '../../../../src/dataplane/nginx/render/renderNginxConf.js';
import type { Configuration } from '../../../../src/model/types.js';
import { configuration, location, server } from './fixtures.js';
import { missingNginx, nginxSyntaxCheck } from './nginxPrefix.js';
import { parseNginxConf, type ParsedDirective } from './nginxConfTokenizer.js';
import { allDirectives, argsOf, expectedWords, named, skeleton } from './parsedTree.js';
import { asText, context, HOSTILE_STRINGS, LONG, serverMatching, web } from './hostileValues.js';

/** One host per value, its `/` carrying `redirects(value)`. */
function scenario(values: readonly string[], redirects: (value: string) => Redirects): Configuration {
  return configuration({
    servers: [
      server('_', []),
      ...values.map((value, index) =>
        server(`r${index}.example`, [location('/', 'prefix', web.name, { annotations: { redirects: redirects(value) } })]),
      ),
    ],
    backends: [web],
  });
}

/** A directive HOSTILE_STRINGS would add (`ssl_engine /tmp/evil.so`, `include /etc/passwd`, `load_module y`) if one broke out of its argument. */
const injected = (directive: ParsedDirective): boolean =>
  directive.name === 'ssl_engine' ||
  (directive.name === 'include' && directive.args[0] === '/etc/passwd') ||
  (directive.name === 'load_module' && directive.args[0] === 'y');

const redirectTo = (url: string): Redirects => ({ redirect: { code: 301, url } });

describe('hostile redirect URLs', () => {
  const hostile = scenario(HOSTILE_STRINGS, redirectTo);
  const rendered = renderNginxConf(hostile, context);
  const tree = parseNginxConf(rendered);

  test('the structure is that of benign URLs, and nginx reads back the builder arguments', () => {
    const benign = scenario(
      HOSTILE_STRINGS.map((_, index) => `http://benign${index}.example/`),
      redirectTo,
    );
    assert.deepEqual(skeleton(tree), skeleton(parseNginxConf(renderNginxConf(benign, context))));
    assert.deepEqual(tree, expectedWords(buildNginxConf(hostile, context)));
  });

  test('each URL is the one argument of its return, every `$` literal', () => {
    HOSTILE_STRINGS.forEach((value, index) => {
      const root = named(serverMatching(tree, `r${index}.example`).children, 'location')[0];
      assert.ok(root);
      assert.deepEqual(argsOf(root, 'return'), [['301', asText(value)]]);
    });
    assert.ok(!allDirectives(tree).some(injected));
  });

  test('passes nginx -t', { skip: missingNginx }, async () => {
    await nginxSyntaxCheck(rendered, context);
  });

  test('a URL longer than nginx reads is refused', () => {
    assert.throws(() => renderNginxConf(scenario([LONG], redirectTo), context), /too long/);
  });
});

describe('hostile app-root values', () => {
  // template(): the model admits only references to variables nginx.conf has; a malformed `$` never reaches nginx.
  const withoutDollar = HOSTILE_STRINGS.filter((value) => !value.includes('$'));
  const appRoot = (value: string): Redirects => ({ appRoot: value });
  const hostile = scenario(withoutDollar, appRoot);
  const rendered = renderNginxConf(hostile, context);
  const tree = parseNginxConf(rendered);

  test('each value is part of the one argument of the return, in the one server-level if', () => {
    withoutDollar.forEach((value, index) => {
      const ifs = named(serverMatching(tree, `r${index}.example`).children, 'if');
      assert.equal(ifs.length, 1);
      assert.deepEqual(argsOf(ifs[0] ?? { name: '', args: [] }, 'return'), [['302', `$scheme://$http_host${value}`]]);
    });
    assert.deepEqual(tree, expectedWords(buildNginxConf(hostile, context)));
    assert.ok(!allDirectives(tree).some(injected));
  });

  test('passes nginx -t', { skip: missingNginx }, async () => {
    await nginxSyntaxCheck(rendered, context);
  });

  test('a malformed variable reference is refused, not written', () => {
    for (const value of HOSTILE_STRINGS.filter((candidate) => candidate.includes('$'))) {
      assert.throws(() => renderNginxConf(scenario([value], appRoot), context), /malformed nginx variable reference/);
    }
  });
});
