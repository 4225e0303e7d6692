import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  Argument,
  captureTemplate,
  filePath,
  ifEquals,
  literal,
  luaPackagePath,
  MAX_TOKEN_BYTES,
  raw,
  template,
  text,
  type Keyword,
} from '../../../../src/dataplane/nginx/render/arguments.js';
import { tokenizeNginxConf } from './nginxConfTokenizer.js';

/** What nginx's tokenizer makes of one argument's token. */
function wordsOf(argument: Argument): string[] {
  return tokenizeNginxConf(argument.token).map((token) => (token.type === 'word' ? token.value : token.type));
}

const NASTY = [
  'plain',
  '',
  'a"b',
  "a'b",
  'a\\b',
  'trailing\\',
  '\\"',
  'a;b{c}d',
  '# not a comment',
  'line\nbreak\r\ncr\ttab',
  '$host ${x} $',
  'content_by_lua_block { os.execute("id") }',
  'ssl_engine /tmp/evil.so; include /etc/passwd;',
  'ünïcødé ☃',
];

describe('literal', () => {
  test('every string is one quoted token that nginx reads back unchanged', () => {
    for (const value of NASTY) {
      const argument = literal(value);
      assert.match(argument.token, /^".*"$/s);
      assert.doesNotMatch(argument.token, /[\n\r\t]/, 'control characters are escaped');
      assert.equal(argument.word, value);
      assert.deepEqual(wordsOf(argument), [value], JSON.stringify(value));
    }
  });

  test('escapes exactly \\ " and the control characters nginx understands', () => {
    assert.equal(literal('a\\b"c\nd\re\tf$g').token, '"a\\\\b\\"c\\nd\\re\\tf$g"');
  });

  test('refuses NUL, which nginx would truncate at', () => {
    assert.throws(() => literal('a\0b'), /NUL/);
  });

  test('refuses tokens nginx cannot read (4096-byte parser buffer)', () => {
    assert.equal(literal('x'.repeat(MAX_TOKEN_BYTES - 2)).word.length, MAX_TOKEN_BYTES - 2);
    assert.throws(() => literal('x'.repeat(MAX_TOKEN_BYTES - 1)), /too long/);
    assert.throws(() => literal('\\'.repeat(MAX_TOKEN_BYTES / 2)), /too long/, 'counts the escaped form');
    assert.throws(() => literal('é'.repeat(MAX_TOKEN_BYTES / 2)), /too long/, 'counts UTF-8 bytes');
  });
});

describe('text', () => {
  test('turns every $ into ${dollar} so nginx interpolates nothing from the value', () => {
    assert.equal(text('$host ${x} $').word, '${dollar}host ${dollar}{x} ${dollar}');
    for (const value of NASTY) {
      const argument = text(value);
      assert.deepEqual(wordsOf(argument), [value.replaceAll('$', '${dollar}')]);
      assert.equal(argument.word.replaceAll('${dollar}', '$'), value);
    }
  });
});

describe('template', () => {
  test('keeps well-formed variable references', () => {
    assert.equal(template('$remote_addr "${request}" $1').word, '$remote_addr "${request}" $1');
    assert.equal(template('https://$redirect_host:8443$request_uri').token, '"https://$redirect_host:8443$request_uri"');
  });

  test('refuses a $ that does not start a variable reference', () => {
    for (const value of ['cost: 5$', '$ alone', '${unclosed', '${}', '$-x']) {
      assert.throws(() => template(value), /malformed nginx variable reference/, value);
    }
  });
});

describe('captureTemplate', () => {
  test('keeps $1..$9 and makes every other $ literal', () => {
    assert.equal(captureTemplate('/$1/$2x/$0/$host/${x}/$').word, '/$1/$2x/${dollar}0/${dollar}host/${dollar}{x}/${dollar}');
  });

  test('makes ${1} literal too: nginx would read it as a variable named "1" and refuse the configuration', () => {
    assert.equal(captureTemplate('/${1}/$1').word, '/${dollar}{1}/$1');
  });
});

describe('filePath', () => {
  test('quotes a path', () => {
    assert.equal(filePath('/var/run/portico dir/x.pem').token, '"/var/run/portico dir/x.pem"');
  });

  test('refuses variables, globs, control characters and the empty path', () => {
    for (const value of ['', '/a/$x', '/a/*.pem', '/a/?', '/a/[b]', '/a\nb', '/a\0b']) {
      assert.throws(() => filePath(value), /unsupported file path/, JSON.stringify(value));
    }
  });
});

describe('luaPackagePath', () => {
  test("the modules under an absolute directory, then ngx_lua's default path", () => {
    assert.equal(luaPackagePath('/opt/portico/lua').token, '"/opt/portico/lua/?.lua;;"');
    assert.equal(luaPackagePath('/opt/portico dir/lua/').word, '/opt/portico dir/lua/?.lua;;');
  });

  test("refuses what filePath refuses, relative directories and Lua's separator", () => {
    for (const value of ['', '/a/$prefix', '/a/*', '/a/?', '/a\nb', 'lua', './lua', '/a;/b']) {
      assert.throws(() => luaPackagePath(value), /unsupported (file path|Lua module directory)/, JSON.stringify(value));
    }
  });
});

describe('raw', () => {
  test('keywords come from a closed set', () => {
    assert.equal(raw.keyword('default_server').token, 'default_server');
    assert.throws(() => raw.keyword('off; include /etc/passwd' as Keyword), /invalid keyword/);
  });

  test('numbers, sizes and times', () => {
    assert.equal(raw.integer(404).token, '404');
    assert.equal(raw.seconds(60).token, '60s');
    assert.equal(raw.size('8k').token, '8k');
    assert.equal(raw.size('0').token, '0');
    assert.equal(raw.time('240s').token, '240s');
    assert.equal(raw.time('1h').token, '1h');
    for (const value of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      assert.throws(() => raw.integer(value), /invalid integer/);
      assert.throws(() => raw.seconds(value), /invalid number of seconds/);
    }
    for (const value of ['', '1m;', '1 m', '1mb', '-1', '1m\n']) assert.throws(() => raw.size(value), /invalid size/);
    for (const value of ['', '1h 30m', '5x', 's']) assert.throws(() => raw.time(value), /invalid time/);
  });

  test('sizes and times beyond what nginx accepts are refused (limits measured with nginx -t)', () => {
    assert.equal(raw.size('8589934591g').token, '8589934591g');
    assert.equal(raw.size('8796093022207m').token, '8796093022207m');
    for (const value of ['8589934592g', '9999999999g', '8796093022208m']) assert.throws(() => raw.size(value), /invalid size/);
    assert.equal(raw.seconds(2147483).token, '2147483s');
    assert.throws(() => raw.seconds(2147484), /invalid number of seconds/);
    assert.equal(raw.time('2147483647ms').token, '2147483647ms');
    assert.equal(raw.time('24d').token, '24d');
    for (const value of ['2147483648ms', '25d', '4w', '1M', '1y', '999999999y']) assert.throws(() => raw.time(value), /invalid time/);
  });

  test('CIDRs and addresses', () => {
    for (const value of ['10.0.0.0/8', '192.168.1.10', 'fd00::/8', '2001:db8::1', '0.0.0.0/0', '::/0']) {
      assert.equal(raw.cidr(value).token, value);
    }
    for (const value of [
      '10.0.0.0/33',
      '10.0.0.0/',
      '10.0.0.0/8/8',
      'fd00::/129',
      'all',
      'example.com',
      '10.0.0.1; allow all',
      '10.0.0.1 ',
      '',
    ]) {
      assert.throws(() => raw.cidr(value), /invalid CIDR/, value);
    }
    assert.equal(raw.listen(undefined, 80).token, '80');
    assert.equal(raw.listen('127.0.0.1', 80).token, '127.0.0.1:80');
    assert.equal(raw.listen('::', 443).token, '[::]:443');
    assert.equal(raw.listen('[fd00::1]', 80).token, '[fd00::1]:80');
    for (const address of ['localhost', '10.0.0.1:80', '[10.0.0.1]', 'a b', '']) {
      assert.throws(() => raw.listen(address, 80), /invalid listen address/, address);
    }
    for (const port of [0, 65536, 1.5, Number.NaN]) assert.throws(() => raw.listen('10.0.0.1', port), /invalid port/);
  });

  test('names', () => {
    assert.equal(raw.variable('$proxy_upstream_name').token, '$proxy_upstream_name');
    assert.throws(() => raw.variable('$x;'), /invalid variable name/);
    assert.equal(raw.headerName('X-Forwarded-For').token, 'X-Forwarded-For');
    for (const name of ['X Forwarded', 'X-A:b', 'X\nY', '"X"', '']) assert.throws(() => raw.headerName(name), /invalid header name/);
    assert.equal(raw.upstreamName('default-web-80').token, 'default-web-80');
    assert.equal(raw.upstreamUrl('grpcs', 'a.b_c-d').token, 'grpcs://a.b_c-d');
    for (const name of ['a b', 'a/b', 'a;b', 'a$b', '']) {
      assert.throws(() => raw.upstreamName(name), /invalid upstream name/);
      assert.throws(() => raw.upstreamUrl('http', name), /invalid upstream name/);
    }
  });

  test('if conditions', () => {
    assert.deepEqual(
      ifEquals('$pass_access_scheme', 'http').map((argument) => argument.token),
      ['($pass_access_scheme', '=', 'http)'],
    );
    assert.throws(() => ifEquals('$x) { return 200; } if ($y', 'http'), /invalid variable name/);
  });
});

test('arguments cannot be made outside arguments.ts', () => {
  const forge = Argument as unknown as new (key: symbol, token: string, word: string) => Argument;
  assert.throws(() => new forge(Symbol('Argument'), 'x; include /etc/passwd', 'x'), /arguments\.ts/);
});
