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
