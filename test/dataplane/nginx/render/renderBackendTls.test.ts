import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { renderNginxConf } from '../../../../src/dataplane/nginx/render/renderNginxConf.js';
import { backendTlsMaterial } from '../../../../src/model/backendTlsSecret.js';
import { SecretFileSet } from '../../../../src/model/secretFiles.js';
import type { BackendProtocol, BackendTls, Configuration, SecretFile } from '../../../../src/model/types.js';
import { backend, configuration, location, server, testContext } from './fixtures.js';
import { missingNginx, nginxSyntaxCheck, selfSignedCertificate } from './nginxPrefix.js';
import { parseNginxConf, type ParsedDirective } from './nginxConfTokenizer.js';
import { allDirectives, argsOf, locationOf, serverNamed } from './parsedTree.js';

const context = testContext();
const web = backend('default-web-80', [{ address: '10.0.0.1', port: 8443 }]);

let secretFiles: SecretFile[] = [];
let files: NonNullable<BackendTls['files']>;

before(async () => {
  const [ca, client] = await Promise.all([selfSignedCertificate('backend-ca.test'), selfSignedCertificate('client.test')]);
  const b64 = (text: string): string => Buffer.from(text).toString('base64');
  const material = backendTlsMaterial({
    data: { 'ca.crt': b64(ca.certificatePem), 'tls.crt': b64(client.certificatePem), 'tls.key': b64(client.keyPem) },
  });
  assert.ok(material.ok && material.ca !== undefined && material.client !== undefined);
  const set = new SecretFileSet();
  files = { trustedCertificate: set.add('app/tls', 'ca', material.ca), clientCertificate: set.add('app/tls', 'client', material.client) };
  secretFiles = set.list();
});

function backendTls(overrides: Partial<BackendTls> = {}): BackendTls {
  return {
    secret: { namespace: undefined, name: 'tls' },
    files,
    verify: true,
    verifyDepth: 2,
    ciphers: 'HIGH:!aNULL',
    protocols: ['TLSv1.2', 'TLSv1.3'],
    name: 'backend.internal',
    serverName: true,
    ...overrides,
  };
}

function render(protocol: BackendProtocol, tls: BackendTls | undefined, rewriteTarget?: string): Configuration {
  return configuration({
    servers: [
      server('_', []),
      server('a.example.com', [
        location('/', 'prefix', web.name, {
          annotations: { backendProtocol: protocol, ...(tls === undefined ? {} : { backendTls: tls }), rewrite: { target: rewriteTarget } },
        }),
      ]),
    ],
    backends: [web],
    secretFiles,
  });
}

function rootLocation(config: Configuration): ParsedDirective {
  return locationOf(serverNamed(parseNginxConf(renderNginxConf(config, context)), 'a.example.com'), '/');
}

/** The `<module>_ssl_*` directives of a location, in order, with their arguments. */
function sslDirectives(block: ParsedDirective): string[][] {
  return (block.children ?? []).filter((directive) => /^(proxy|grpc)_ssl_/.test(directive.name)).map((d) => [d.name, ...d.args]);
}

describe('backend TLS in a location', () => {
  test('a location without proxy-ssl-secret gets no TLS directive at all', () => {
    for (const protocol of ['HTTP', 'HTTPS', 'GRPC', 'GRPCS'] as const) {
      const tree = parseNginxConf(renderNginxConf(render(protocol, undefined), context));
      assert.deepEqual(
        allDirectives(tree).filter((directive) => /^(proxy|grpc)_ssl_/.test(directive.name)),
        [],
        protocol,
      );
    }
  });

  test('HTTPS: the proxy_ssl_* directives, files by their literal paths under secrets/', () => {
    const ca = `secrets/${files.trustedCertificate ?? ''}`;
    const client = `secrets/${files.clientCertificate ?? ''}`;
    assert.deepEqual(sslDirectives(rootLocation(render('HTTPS', backendTls()))), [
      ['proxy_ssl_trusted_certificate', ca],
      ['proxy_ssl_verify', 'on'],
      ['proxy_ssl_verify_depth', '2'],
      ['proxy_ssl_ciphers', 'HIGH:!aNULL'],
      ['proxy_ssl_protocols', 'TLSv1.2', 'TLSv1.3'],
      ['proxy_ssl_name', 'backend.internal'],
      ['proxy_ssl_server_name', 'on'],
      ['proxy_ssl_certificate', client],
      ['proxy_ssl_certificate_key', client],
    ]);
  });

  test('GRPCS: the same as grpc_ssl_*; without ca.crt no verification directives; without tls.crt no certificate', () => {
    const caOnly = backendTls({ files: { trustedCertificate: files.trustedCertificate, clientCertificate: undefined }, name: '$host' });
    assert.deepEqual(
      sslDirectives(rootLocation(render('GRPCS', caOnly))).map(([name]) => name),
      [
        'grpc_ssl_trusted_certificate',
        'grpc_ssl_verify',
        'grpc_ssl_verify_depth',
        'grpc_ssl_ciphers',
        'grpc_ssl_protocols',
        'grpc_ssl_name',
        'grpc_ssl_server_name',
      ],
    );
    const clientOnly = backendTls({ files: { trustedCertificate: undefined, clientCertificate: files.clientCertificate }, verify: false });
    assert.deepEqual(sslDirectives(rootLocation(render('HTTPS', { ...clientOnly, name: undefined, serverName: false }))), [
      ['proxy_ssl_ciphers', 'HIGH:!aNULL'],
      ['proxy_ssl_protocols', 'TLSv1.2', 'TLSv1.3'],
      ['proxy_ssl_server_name', 'off'],
      ['proxy_ssl_certificate', `secrets/${files.clientCertificate ?? ''}`],
      ['proxy_ssl_certificate_key', `secrets/${files.clientCertificate ?? ''}`],
    ]);
  });

  test('plain HTTP and gRPC backends: no TLS directive even with proxy-ssl-secret', () => {
    for (const protocol of ['HTTP', 'GRPC'] as const) assert.deepEqual(sslDirectives(rootLocation(render(protocol, backendTls()))), []);
  });

  test('an unusable Secret: return 503 before any rewrite, and no TLS directive', () => {
    for (const protocol of ['HTTP', 'HTTPS', 'GRPCS'] as const) {
      const block = rootLocation(render(protocol, backendTls({ files: undefined }), '/x'));
      assert.deepEqual(sslDirectives(block), [], protocol);
      const names = (block.children ?? []).map((directive) => directive.name);
      assert.deepEqual(argsOf(block, 'return'), [['503']], protocol);
      assert.ok(names.indexOf('return') < names.indexOf('rewrite'), `${protocol}: ${names.join(' ')}`);
    }
  });

  test('each distinct set of TLS settings proxies to an upstream of its own, so no location reuses a connection made with other settings', () => {
    const verified = backendTls();
    const unverified = backendTls({ verify: false });
    const config = configuration({
      servers: [
        server('_', []),
        server('a.example.com', [
          location('/', 'prefix', web.name, { annotations: { backendProtocol: 'HTTPS', backendTls: verified } }),
          location('/same', 'prefix', web.name, { annotations: { backendProtocol: 'HTTPS', backendTls: { ...verified } } }),
          location('/other', 'prefix', web.name, { annotations: { backendProtocol: 'HTTPS', backendTls: unverified } }),
          location('/plain', 'prefix', web.name, { annotations: { backendProtocol: 'HTTPS' } }),
          location('/denied', 'prefix', web.name, {
            annotations: { backendProtocol: 'HTTPS', backendTls: backendTls({ files: undefined }) },
          }),
        ]),
      ],
      backends: [web],
      secretFiles,
    });
    const tree = parseNginxConf(renderNginxConf(config, context));
    const host = serverNamed(tree, 'a.example.com');
    const upstreamOf = (...matcher: string[]): string => argsOf(locationOf(host, ...matcher), 'proxy_pass')[0]?.[0] ?? '';
    const [root, same, other, plain, denied] = [['/'], ['/same/'], ['/other/'], ['/plain/'], ['/denied/']].map((m) => upstreamOf(...m));
    assert.equal(same, root);
    assert.notEqual(other, root);
    assert.match(root ?? '', /^https:\/\/upstream_balancer_tls_[0-9a-f]{16}$/);
    assert.equal(plain, 'https://upstream_balancer');
    assert.equal(denied, 'https://upstream_balancer');
    const upstreams = allDirectives(tree).filter((directive) => directive.name === 'upstream');
    assert.deepEqual(upstreams.map((upstream) => upstream.args[0]).sort(), ['upstream_balancer', root?.slice(8), other?.slice(8)].sort());
    const shape = (upstream: ParsedDirective) =>
      (upstream.children ?? []).map((child) => [child.name, ...child.args, ...(child.lua ?? [])]);
    for (const upstream of upstreams)
      assert.deepEqual(shape(upstream), shape(upstreams.find((u) => u.args[0] === 'upstream_balancer') ?? upstream));
  });

  test('nginx -t loads the files (HTTPS and GRPCS, with and without a client certificate)', { skip: missingNginx }, async () => {
    const configurations = [
      render('HTTPS', backendTls()),
      render('GRPCS', backendTls({ name: '${host}.internal' })),
      render('HTTPS', backendTls({ verify: false, files: { trustedCertificate: undefined, clientCertificate: files.clientCertificate } })),
    ];
    for (const config of configurations) await nginxSyntaxCheck(renderNginxConf(config, context), context, config.secretFiles);
  });
});
