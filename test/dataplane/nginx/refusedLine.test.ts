import { test } from 'node:test';
import assert from 'node:assert/strict';
import { refusedLine } from '../../../src/dataplane/nginx/process/refusedLine.js';

const FILE = '/run/portico/nginx/conf/nginx.conf.rejected';

test('the line of our file that nginx names, from nginx -t or the master log', () => {
  assert.equal(refusedLine(`[emerg] unknown directive "x" in ${FILE}:182`, FILE), 182);
  assert.equal(
    refusedLine(
      `2026/12/01 11:20:25 [emerg] 3825#3825: unknown directive "x" in ${FILE}:7\nnginx: configuration file ${FILE} test failed`,
      FILE,
    ),
    7,
  );
});

test('no line for other files, errors without a place, or a different file with our name as prefix', () => {
  assert.equal(refusedLine('[emerg] unexpected "}" in /etc/nginx/mime.types:3', FILE), undefined);
  assert.equal(refusedLine('[emerg] bind() to 127.0.0.1:80 failed (98: Address already in use)', FILE), undefined);
  assert.equal(refusedLine(`[emerg] x in ${FILE}.old:3`, FILE), undefined);
  assert.equal(refusedLine(`[emerg] x in ${FILE}:3x`, FILE), undefined);
});

test('a cipher list OpenSSL refuses, which nginx reports without a place: the first line setting exactly that list', () => {
  const text = [
    'http {',
    '    ssl_ciphers "HIGH";',
    '    server {',
    '        ssl_ciphers "AES128-SHA:!AES128-SHA";',
    '        location / { proxy_ssl_ciphers "AES256-SHA:!AES256-SHA"; }',
    '    }',
    '}',
  ].join('\n');
  const failure = (list: string) =>
    `2026/12/01 16:48:48 [emerg] 32616#32616: SSL_CTX_set_cipher_list("${list}") failed (SSL: error:0A0000B9:SSL routines::no cipher match)`;
  assert.equal(refusedLine(failure('AES128-SHA:!AES128-SHA'), FILE, text), 4);
  assert.equal(refusedLine(failure('HIGH'), FILE, text), 2);
  // A line such as `        location / { proxy_ssl_ciphers ...` is not Portico's rendering (one directive a line): not matched.
  assert.equal(refusedLine(failure('AES256-SHA:!AES256-SHA'), FILE, text), undefined);
  assert.equal(refusedLine(failure('NOT:RENDERED'), FILE, text), undefined);
  // Without the text, as before.
  assert.equal(refusedLine(failure('AES128-SHA:!AES128-SHA'), FILE), undefined);
});
