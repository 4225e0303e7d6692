import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseNginxConf } from './nginxConfTokenizer.js';

test('parses directives, blocks, quotes, escapes and comments as nginx does', () => {
  const source = [
    '# a comment; { }',
    'events { worker_connections 1024; }',
    'http {',
    '  map $a $b { "" \'x y\'; default "q\\"\\\\\\n\\t\\x"; }',
    '  set $v ${name}x; # trailing comment',
    '  location = a#b { return 200 "}"; }',
    '}',
  ].join('\n');
  assert.deepEqual(parseNginxConf(source), [
    { name: 'events', args: [], children: [{ name: 'worker_connections', args: ['1024'] }] },
    {
      name: 'http',
      args: [],
      children: [
        { name: 'map', args: ['$a', '$b'], children: [{ name: '', args: ['x y'] }, { name: 'default', args: ['q"\\\n\t\\x'] }] },
        { name: 'set', args: ['$v', '${name}x'] },
        { name: 'location', args: ['=', 'a#b'], children: [{ name: 'return', args: ['200', '}'] }] },
      ],
    },
  ]);
});

test('an unescaped quote or brace changes the structure (what escaping prevents)', () => {
  assert.deepEqual(parseNginxConf('set $x "a"; include /etc/passwd; "";'), [
    { name: 'set', args: ['$x', 'a'] },
    { name: 'include', args: ['/etc/passwd'] },
    { name: '', args: [] },
  ]);
});

test('rejects what nginx rejects', () => {
  for (const source of ['a "b"c;', 'a "b;', '}', 'a { b;', 'a b', '; a;', 'a { b }']) {
    assert.throws(() => parseNginxConf(source), Error, source);
  }
});
