// The rendering of a host's client-certificate verification (auth-tls-*):
// server-level directives naming the SecretFiles by literal path, the
// ssl-client-* headers in its proxying locations only, 503 for a refused host,
// nothing at all for hosts without it; and nginx -t with real CA and CRL files.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { originOfLine } from '../../../../src/dataplane/nginx/render/configOrigins.js';
import { renderNginxConf, renderTracedNginxConf } from '../../../../src/dataplane/nginx/render/renderNginxConf.js';
import { matchLimited } from '../../../../src/dataplane/nginx/render/regex.js';
import type { ClientCertificateAnnotations, HostClientCertificates, Server } from '../../../../src/model/types.js';
import { createClientCertificateAuthority, type ClientCertificateAuthority } from '../../../support/clientCertificateAuthority.js';
import { backend, configuration, ingressRef, location, server, testContext } from './fixtures.js';
import { missingNginx, nginxSyntaxCheck } from './nginxPrefix.js';
import { parseNginxConf, type ParsedDirective } from './nginxConfTokenizer.js';
import { allDirectives, argsOf, locationOf, serverNamed } from './parsedTree.js';

const web = backend('shop-web-80', [{ address: '10.0.0.1', port: 8080 }]);
const grpc = backend('shop-grpc-50051', [{ address: '10.0.0.2', port: 50051 }]);
const CA_FILE = 'shop-partner-ca-ca-0123456789abcdef.pem';
const CRL_FILE = 'shop-partner-ca-crl-0123456789abcdef.pem';

const verify: ClientCertificateAnnotations = {
  secret: { namespace: undefined, name: 'partner-ca' },
  verifyClient: 'on',
  verifyDepth: 2,
  errorPage: 'https://errors.example.com/mtls',
  passCertificateToUpstream: true,
  matchCn: 'CN=(partner-a|partner-b)$',
};

function withClientCertificates(host: Server, clientCertificates: HostClientCertificates): Server {
  return { ...host, clientCertificates };
}

const ingress = ingressRef('shop', 'partner');
const config = configuration({
  servers: [
    server('_', []),
    withClientCertificates(
      server('mtls.example.com', [
        location('/', 'prefix', web.name),
        location('/greeter', 'prefix', grpc.name, { annotations: { backendProtocol: 'GRPC' } }),
        location('/nothing', 'exact', undefined),
      ]),
      { ingress, verify, caFile: CA_FILE, crlFile: CRL_FILE },
    ),
    withClientCertificates(server('optional.example.com', [location('/', 'prefix', web.name)]), {
      ingress,
      verify: {
        ...verify,
        verifyClient: 'optional_no_ca',
        verifyDepth: 1,
        errorPage: undefined,
        passCertificateToUpstream: false,
        matchCn: undefined,
      },
      caFile: CA_FILE,
      crlFile: undefined,
    }),
    withClientCertificates(server('refused.example.com', [location('/', 'prefix', web.name)]), { ingress, refused: 'no Secret' }),
    server('plain.example.com', [location('/', 'prefix', web.name)], { tls: true }),
  ],
  backends: [web, grpc],
});
const context = testContext();
const rendered = renderNginxConf(config, context);
const tree = parseNginxConf(rendered);

const VERIFY_DIRECTIVES = ['ssl_client_certificate', 'ssl_verify_client', 'ssl_verify_depth', 'ssl_crl', 'error_page', 'if'];
const HEADERS = ['ssl-client-cert', 'ssl-client-verify', 'ssl-client-subject-dn', 'ssl-client-issuer-dn'];

/** The ssl-client-* headers a location sets, with the directive that sets them. */
function clientHeaders(block: ParsedDirective): string[][] {
  return block.children
    ? block.children
        .filter((directive) => directive.name.endsWith('_set_header') && HEADERS.includes(directive.args[0] ?? ''))
        .map((directive) => [directive.name, ...directive.args])
    : [];
}

describe('a host that verifies client certificates', () => {
  const host = serverNamed(tree, 'mtls.example.com');

  test('names the CA bundle and CRL by their literal paths, with the mode, depth and error page', () => {
    assert.deepEqual(argsOf(host, 'ssl_client_certificate'), [[`${context.paths.secretFiles}/${CA_FILE}`]]);
    assert.deepEqual(argsOf(host, 'ssl_crl'), [[`${context.paths.secretFiles}/${CRL_FILE}`]]);
    assert.deepEqual(argsOf(host, 'ssl_verify_client'), [['on']]);
    assert.deepEqual(argsOf(host, 'ssl_verify_depth'), [['2']]);
    assert.deepEqual(argsOf(host, 'error_page'), [['495', '496', '=', 'https://errors.example.com/mtls']]);
  });

  test('refuses a subject DN that auth-tls-match-cn does not match with 403, match-limited', () => {
    const [condition] = host.children?.filter((directive) => directive.name === 'if') ?? [];
    assert.ok(condition);
    assert.deepEqual(condition.args, ['(', '$ssl_client_s_dn', '!~', matchLimited('CN=(partner-a|partner-b)$'), ')']);
    assert.deepEqual(argsOf(condition, 'return'), [['403', 'client certificate unauthorized']]);
  });

  test('its proxying locations send the ssl-client-* headers (grpc_set_header for gRPC); its 404 location none', () => {
    const expected = (directive: string) => [
      [directive, 'ssl-client-cert', '$ssl_client_escaped_cert'],
      [directive, 'ssl-client-verify', '$ssl_client_verify'],
      [directive, 'ssl-client-subject-dn', '$ssl_client_s_dn'],
      [directive, 'ssl-client-issuer-dn', '$ssl_client_i_dn'],
    ];
    assert.deepEqual(clientHeaders(locationOf(host, '/')), expected('proxy_set_header'));
    assert.deepEqual(clientHeaders(locationOf(host, '/greeter/')), expected('grpc_set_header'));
    assert.deepEqual(clientHeaders(locationOf(host, '=', '/nothing')), []);
  });

  test('without the optional parts: no CRL, error page, CN check or ssl-client-cert', () => {
    const optional = serverNamed(tree, 'optional.example.com');
    assert.deepEqual(argsOf(optional, 'ssl_verify_client'), [['optional_no_ca']]);
    for (const name of ['ssl_crl', 'error_page', 'if']) assert.deepEqual(argsOf(optional, name), [], name);
    assert.deepEqual(
      clientHeaders(locationOf(optional, '/')).map(([, name]) => name),
      ['ssl-client-verify', 'ssl-client-subject-dn', 'ssl-client-issuer-dn'],
    );
  });
});

test('a refused host answers 503 at the server level, before any location, and verifies nothing', () => {
  const refused = serverNamed(tree, 'refused.example.com');
  assert.deepEqual(argsOf(refused, 'return'), [['503']]);
  for (const name of VERIFY_DIRECTIVES) assert.deepEqual(argsOf(refused, name), [], name);
  assert.deepEqual(clientHeaders(locationOf(refused, '/')), []);
});

test('hosts without auth-tls-* get nothing of it: no directive, no header', () => {
  for (const name of ['_', 'plain.example.com']) {
    const host = serverNamed(tree, name);
    for (const directive of [...VERIFY_DIRECTIVES, 'return']) assert.deepEqual(argsOf(host, directive), [], `${name} ${directive}`);
    assert.deepEqual(allDirectives([host]).flatMap(clientHeaders), [], name);
  }
});

test('the verification lines are the choosing Ingress’s, so a refusal by nginx leaves that Ingress out', () => {
  const { config: traced, origins } = renderTracedNginxConf(config, context);
  const lines = traced.bytes.toString().split('\n');
  const numbers = lines.flatMap((line, index) => (/^\s*(ssl_client_certificate|ssl_crl|ssl_verify_client) /.test(line) ? [index + 1] : []));
  assert.equal(numbers.length, 5);
  const refusedServer = lines.findIndex((line) => line.includes('server_name "refused.example.com"'));
  numbers.push(lines.findIndex((line, index) => index > refusedServer && /^\s*return 503;/.test(line)) + 1);
  for (const number of numbers) assert.deepEqual(originOfLine(traced, origins, number), { kind: 'ingress', ingress });
});

describe('nginx -t with real CA and CRL files', { skip: missingNginx }, () => {
  let ca: ClientCertificateAuthority;
  before(async () => {
    ca = await createClientCertificateAuthority('render-ca');
  });
  after(() => ca?.close());

  test('passes', async () => {
    const files = [
      { id: CA_FILE, secret: 'default/ca', contents: ca.caPem },
      { id: CRL_FILE, secret: 'default/ca', contents: await ca.crl([await ca.issue('revoked')]) },
    ];
    await nginxSyntaxCheck(rendered, context, files);
  });
});
