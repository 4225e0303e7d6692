// The TLS keys in nginx.conf: ingress-nginx's template lines at the defaults,
// every key's directive when set, and nginx -t accepting the values at the
// bounds the model allows (and refusing what lies beyond them).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { before, describe, test } from 'node:test';
import { renderNginxConf } from '../../../../src/dataplane/nginx/render/renderNginxConf.js';
import { secretFilePath } from '../../../../src/dataplane/nginx/render/renderContext.js';
import { ECDH_GROUP_NAMES } from '../../../../src/model/settings/keys/tlsSettings.js';
import type { GlobalSettings } from '../../../../src/model/settings/globalSettings.js';
import { SecretFileSet } from '../../../../src/model/secretFiles.js';
import type { Configuration } from '../../../../src/model/types.js';
import { configuration, server, testContext } from './fixtures.js';
import { missingNginx, nginxSyntaxCheck } from './nginxPrefix.js';
import { parseNginxConf } from './nginxConfTokenizer.js';
import { argsOf, only, serverNamed } from './parsedTree.js';

const run = promisify(execFile);
/** Every group once, by one of its names. */
const DISTINCT_GROUPS =
  'X25519:X448:prime256v1:secp384r1:P-521:secp256k1:brainpoolP256r1:brainpoolP384r1:brainpoolP512r1:ffdhe2048:ffdhe3072:ffdhe4096:ffdhe6144:ffdhe8192';
const context = testContext();

const HTTP_TLS_DIRECTIVES = [
  'ssl_early_data',
  'ssl_session_cache',
  'ssl_session_timeout',
  'ssl_session_tickets',
  'ssl_session_ticket_key',
  'ssl_buffer_size',
  'ssl_dhparam',
  'ssl_ecdh_curve',
];

let dhParamPem = '';
let weakDhParamPem = '';

before(async () => {
  dhParamPem = (await run('openssl', ['genpkey', '-genparam', '-algorithm', 'DH', '-pkeyopt', 'group:ffdhe2048'], { timeout: 30_000 }))
    .stdout;
  // Below the model's bound: only here to show that nginx refuses it.
  weakDhParamPem = (await run('openssl', ['dhparam', '1024'], { timeout: 60_000 })).stdout;
});

function render(
  settings: Partial<GlobalSettings>,
  files: { dhParam?: string; ticketKey?: Buffer } = {},
): { conf: string; config: Configuration } {
  const set = new SecretFileSet();
  const tlsFiles = {
    dhParam: files.dhParam === undefined ? undefined : set.add('ingress/dh', 'dhparam', files.dhParam),
    sessionTicketKey: files.ticketKey === undefined ? undefined : set.addBinary('ssl-session-ticket-key', files.ticketKey),
  };
  const config = {
    ...configuration({ servers: [server('_', []), server('a.example.com', [])], settings, secretFiles: set.list() }),
    tlsFiles,
  };
  return { conf: renderNginxConf(config, context), config };
}

function httpTlsDirectives(conf: string): string[][] {
  const http = only(parseNginxConf(conf), 'http');
  return (http.children ?? []).filter((node) => HTTP_TLS_DIRECTIVES.includes(node.name)).map((node) => [node.name, ...node.args]);
}

test("defaults: ingress-nginx's template lines, and ssl_reject_handshake off in the catch-all server only", () => {
  const { conf } = render({});
  assert.deepEqual(httpTlsDirectives(conf), [
    ['ssl_early_data', 'off'],
    ['ssl_session_cache', 'shared:SSL:10m'],
    ['ssl_session_timeout', '10m'],
    ['ssl_session_tickets', 'off'],
    ['ssl_buffer_size', '4k'],
    ['ssl_ecdh_curve', 'auto'],
  ]);
  const tree = parseNginxConf(conf);
  assert.deepEqual(argsOf(serverNamed(tree, '_'), 'ssl_reject_handshake'), [['off']]);
  assert.deepEqual(argsOf(serverNamed(tree, 'a.example.com'), 'ssl_reject_handshake'), []);
});

test('every key set: its directive, the files by their SecretFile paths', () => {
  const { conf, config } = render(
    {
      sslSessionCache: false,
      sslSessionTickets: true,
      sslEcdhCurve: 'X25519:P-384',
      sslBufferSize: '16k',
      sslEarlyData: true,
      sslRejectHandshake: true,
    },
    { dhParam: dhParamPem, ticketKey: randomBytes(80) },
  );
  assert.deepEqual(httpTlsDirectives(conf), [
    ['ssl_early_data', 'on'],
    ['ssl_session_tickets', 'on'],
    ['ssl_session_ticket_key', secretFilePath(context, config.tlsFiles?.sessionTicketKey ?? '')],
    ['ssl_buffer_size', '16k'],
    ['ssl_dhparam', secretFilePath(context, config.tlsFiles?.dhParam ?? '')],
    ['ssl_ecdh_curve', 'X25519:P-384'],
  ]);
  assert.deepEqual(argsOf(serverNamed(parseNginxConf(conf), '_'), 'ssl_reject_handshake'), [['on']]);
  // The session cache on, with its own size and timeout.
  assert.deepEqual(httpTlsDirectives(render({ sslSessionCacheSize: '20m', sslSessionTimeout: '1h' }).conf).slice(1, 3), [
    ['ssl_session_cache', 'shared:SSL:20m'],
    ['ssl_session_timeout', '1h'],
  ]);
});

describe('nginx -t', { skip: missingNginx }, () => {
  const check = ({ conf, config }: { conf: string; config: Configuration }) => nginxSyntaxCheck(conf, context, config.secretFiles);

  test('accepts every key set, with the files written as the data plane writes them', async () => {
    await check(
      render(
        { sslSessionTickets: true, sslEcdhCurve: 'X25519:P-256', sslEarlyData: true, sslRejectHandshake: true },
        { dhParam: dhParamPem, ticketKey: randomBytes(48) },
      ),
    );
  });

  test("accepts the model's bounds: cache 32k and 1024m, buffer 512 and 16k, timeout 0 and 24d, every ECDH group", async () => {
    await check(render({ sslSessionCacheSize: '32k', sslBufferSize: '512', sslSessionTimeout: '0', sslEcdhCurve: DISTINCT_GROUPS }));
    await check(render({ sslSessionCacheSize: '1024m', sslBufferSize: '16k', sslSessionTimeout: '24d' }));
    for (const group of ECDH_GROUP_NAMES) await check(render({ sslEcdhCurve: group }));
  });

  test('refuses what the model refuses: a smaller cache, a 1024-bit prime, a ticket key of another length', async () => {
    await assert.rejects(check(render({ sslSessionCacheSize: '31k' })), /is too small/);
    await assert.rejects(check(render({}, { dhParam: weakDhParamPem })), /dh key too small/);
    await assert.rejects(check(render({}, { ticketKey: randomBytes(32) })), /must be 48 or 80 bytes/);
    await assert.rejects(check(render({ sslEcdhCurve: 'p-256' })), /cannot be set/);
    await assert.rejects(check(render({ sslEcdhCurve: 'P-256:prime256v1' })), /SSL_CTX_set1_curves_list/);
  });
});
