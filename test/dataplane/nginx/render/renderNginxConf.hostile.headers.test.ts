// Hostile values in the fields of the header annotations (custom-headers,
// upstream-vhost, x-forwarded-prefix, proxy-cookie-*, proxy-redirect-*): see renderNginxConf.hostile.test.ts.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildNginxConf, renderNginxConf } from '../../../../src/dataplane/nginx/render/renderNginxConf.js';
import type { Configuration, Location, LocationAnnotations } from '../../../../src/model/types.js';
import { annotations, configuration, location, server } from './fixtures.js';
import { asText, context, HOSTILE_STRINGS, LONG, serverMatching, web } from './hostileValues.js';
import { missingNginx, nginxSyntaxCheck } from './nginxPrefix.js';
import { parseNginxConf } from './nginxConfTokenizer.js';
import { allDirectives, argsOf, expectedWords, locationOf, skeleton } from './parsedTree.js';

/** upstream-vhost's `$` references are nginx variables on purpose: the hostile text without its `$` (a stray `$` is refused, below). */
const dollarless = (value: string): string => value.replaceAll('$', '');

function headerLocation(value: string, index: number): Location {
  const plain = location(`/h${index}`, 'prefix', web.name);
  const hostile: Partial<LocationAnnotations> = {
    rewrite: { ...plain.annotations.rewrite, target: '/' },
    customHeaders: { from: { namespace: undefined, name: 'h' }, headers: [['X-Hostile', value]], denied: undefined },
    upstreamHeaders: { connection: 'close', host: dollarless(value), forwardedPrefix: value },
    responseRewrites: {
      // A leading `~` makes nginx compile the rest as a regex: the model admits only regexes that compile.
      cookieDomain: { from: `d${value}`, to: value },
      cookiePath: { from: `/${value}`, to: value },
      redirect: { from: `/${value}`, to: value },
    },
  };
  return { ...plain, annotations: { ...annotations(), ...hostile } };
}

const scenario = (values: readonly string[]): Configuration =>
  configuration({ servers: [server('headers.example', values.map(headerLocation))], backends: [web] });

describe('hostile values in the header annotations', () => {
  const hostile = scenario(HOSTILE_STRINGS);
  const rendered = renderNginxConf(hostile, context);
  const tree = parseNginxConf(rendered);

  test('the structure is that of a benign rendering, and nginx reads back exactly the arguments given', () => {
    const benign = scenario(HOSTILE_STRINGS.map((_, index) => `benign${index}`));
    assert.deepEqual(skeleton(tree), skeleton(parseNginxConf(renderNginxConf(benign, context))));
    assert.deepEqual(tree, expectedWords(buildNginxConf(hostile, context)));
    assert.ok(!allDirectives(tree).some((directive) => directive.name === 'ssl_engine'));
  });

  test('each hostile value is one whole argument, every `$` a dollar sign except the captures and variables meant', () => {
    const host = serverMatching(tree, 'headers.example');
    HOSTILE_STRINGS.forEach((value, index) => {
      const block = locationOf(host, `/h${index}/`);
      assert.deepEqual(argsOf(block, 'more_set_headers'), [[`X-Hostile: ${asText(value)}`]]);
      const headers = Object.fromEntries(argsOf(block, 'proxy_set_header').map(([name = '', header = '']) => [name, header]));
      assert.equal(headers['Host'], dollarless(value));
      assert.equal(headers['Connection'], 'close');
      // x-forwarded-prefix: $1..$9 are the rewrite's captures, any other `$` literal.
      assert.equal(headers['X-Forwarded-Prefix'], value.replace(/\$(?![1-9])/g, '${dollar}'));
      assert.deepEqual(argsOf(block, 'proxy_cookie_domain'), [[asText(`d${value}`), asText(value)]]);
      assert.deepEqual(argsOf(block, 'proxy_cookie_path'), [[asText(`/${value}`), asText(value)]]);
      assert.deepEqual(argsOf(block, 'proxy_redirect'), [[asText(`/${value}`), asText(value)]]);
    });
  });

  test('passes nginx -t, headers-more loaded', { skip: missingNginx }, async () => {
    assert.equal(allDirectives(tree).filter((directive) => directive.name === 'load_module').length, 3);
    await nginxSyntaxCheck(rendered, context);
  });

  test('a malformed variable reference in upstream-vhost and a header name outside the token characters are refused', () => {
    const withAnnotations = (extra: Partial<LocationAnnotations>): Configuration => {
      const plain = location('/', 'prefix', web.name);
      return configuration({
        servers: [server('headers.example', [{ ...plain, annotations: { ...annotations(), ...extra } }])],
        backends: [web],
      });
    };
    for (const value of HOSTILE_STRINGS.filter((candidate) => candidate.includes('$'))) {
      const config = withAnnotations({ upstreamHeaders: { connection: undefined, host: value, forwardedPrefix: undefined } });
      assert.throws(() => renderNginxConf(config, context), /malformed nginx variable reference/);
    }
    for (const name of [...HOSTILE_STRINGS.filter((candidate) => candidate !== 'ssl_engine'), LONG, '', 'X-A:']) {
      const config = withAnnotations({
        customHeaders: { from: { namespace: undefined, name: 'h' }, headers: [[name, 'v']], denied: undefined },
      });
      assert.throws(() => renderNginxConf(config, context), /invalid header name/);
    }
    const long = withAnnotations({
      customHeaders: { from: { namespace: undefined, name: 'h' }, headers: [['X-A', LONG]], denied: undefined },
    });
    assert.throws(() => renderNginxConf(long, context), /too long/);
  });
});
