import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseNginxConf, tokenizeNginxConf } from './nginxConfTokenizer.js';

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
        {
          name: 'map',
          args: ['$a', '$b'],
          children: [
            { name: '', args: ['x y'] },
            { name: 'default', args: ['q"\\\n\t\\x'] },
          ],
        },
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

test('a *_by_lua_block body is Lua, read up to its matching brace as ngx_lua does', () => {
  const source = [
    'http {',
    '  init_by_lua_block {',
    '    local t = { a = "}", b = \'{\', c = [[ } ]], d = [==[ ]] } ]==] }',
    '    -- a comment } with a brace',
    '    --[[ a long } comment ]] require("x").y({ n = 1 })',
    '  }',
    '  server { location / { rewrite_by_lua_block { f() } return 200; } }',
    '}',
  ].join('\n');
  const [http] = parseNginxConf(source);
  assert.deepEqual(http?.children?.[0], {
    name: 'init_by_lua_block',
    args: [],
    lua: [
      'local t = { a = "}", b = \'{\', c = [[ } ]], d = [==[ ]] } ]==] }',
      '-- a comment } with a brace',
      '--[[ a long } comment ]] require("x").y({ n = 1 })',
    ],
  });
  assert.deepEqual(http?.children?.[1], {
    name: 'server',
    args: [],
    children: [
      {
        name: 'location',
        args: ['/'],
        children: [
          { name: 'rewrite_by_lua_block', args: [], lua: ['f()'] },
          { name: 'return', args: ['200'] },
        ],
      },
    ],
  });
  assert.deepEqual(
    tokenizeNginxConf('content_by_lua_block {\n  ngx.say("hi")\n}').map((token) =>
      'value' in token ? [token.type, token.value] : [token.type],
    ),
    [
      ['word', 'content_by_lua_block'],
      ['lua', '\n  ngx.say("hi")\n'],
    ],
  );
});

test('only a directive name ending in _by_lua_block opens a Lua body; a quoted argument does not', () => {
  assert.deepEqual(parseNginxConf('location "content_by_lua_block" { return 200; }'), [
    { name: 'location', args: ['content_by_lua_block'], children: [{ name: 'return', args: ['200'] }] },
  ]);
  for (const source of ['content_by_lua_block { f(', 'content_by_lua_block { f("}) }', 'content_by_lua_block { [[ } }']) {
    assert.throws(() => parseNginxConf(source), /unterminated/, source);
  }
});
