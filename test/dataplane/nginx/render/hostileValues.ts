// The hostile strings and helpers every hostile render test shares
// (renderNginxConf.hostile*.test.ts): one set of attacks on nginx's syntax,
// fed into every field that comes from a Kubernetes object.
import assert from 'node:assert/strict';
import { backend, testContext } from './fixtures.js';
import type { ParsedDirective } from './nginxConfTokenizer.js';
import { argsOf, servers } from './parsedTree.js';

export const HOSTILE_STRINGS = [
  '"; } ssl_engine /tmp/evil.so; server { #',
  "'; include /etc/passwd; '",
  'a;b{c}d#e',
  '$host ${x} $1 $ ${',
  'line\nssl_engine x;\r\nload_module y;\n',
  'back\\slash \\" \\n \\\\',
  '}}}}{{{{;;;;',
  'content_by_lua_block { os.execute("id") }',
  '# comment',
  'ssl_engine',
  'include /etc/passwd',
  '~* ^/.*',
  '=',
  '@named',
  '\t \u00a0ünïcødé',
];

export const LONG = 'x'.repeat(10_000);

export const web = backend('default-web-80', [{ address: '10.0.0.1', port: 8080 }]);

export const context = testContext();

/** How nginx must read back a user string that went through text(): every `$` as `${dollar}`. */
export const asText = (value: string): string => value.replaceAll('$', '${dollar}');

export function serverMatching(tree: readonly ParsedDirective[], host: string): ParsedDirective {
  const matching = servers(tree).filter((block) =>
    argsOf(block, 'server_name').some(([name = '']) => (name.startsWith('~') ? new RegExp(name.slice(1), 'i').test(host) : name === host)),
  );
  assert.equal(matching.length, 1, `servers matching ${JSON.stringify(host)}`);
  const [found] = matching;
  assert.ok(found);
  return found;
}
