// Hostile values in every field that comes from a Kubernetes object: the
// rendering must keep exactly the structure of a benign one, each hostile
// string one whole argument of the directive meant for it, and nginx -t must
// accept it. Fields with a strict validator must refuse instead. Endpoints and
// certificates are live state: nothing of them may reach nginx.conf at all.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildNginxConf, renderNginxConf } from '../../../../src/dataplane/nginx/render/renderNginxConf.js';
import type {
  BackendProtocol,
  ClientCertificateAnnotations,
  ClientVerification,
  Configuration,
  Server,
} from '../../../../src/model/types.js';
import { annotations, backend, certificate, configuration, ingressRef, location, server, BALANCER_HOOKS } from './fixtures.js';
import { missingNginx, nginxSyntaxCheck } from './nginxPrefix.js';
import { createClientCertificateAuthority } from '../../../support/clientCertificateAuthority.js';
import { matchLimited } from '../../../../src/dataplane/nginx/render/regex.js';
import { asText, context, HOSTILE_STRINGS, LONG, serverMatching, web } from './hostileValues.js';
import { parseNginxConf } from './nginxConfTokenizer.js';
import { allDirectives, argsOf, expectedWords, locationOf, luaBlocks, named, skeleton } from './parsedTree.js';
import { logVariables } from './logVariables.js';

/** A regex path that is hostile to the config syntax yet a valid PCRE (the model validates regexes). */
const HOSTILE_REGEX_PATH = '/r"; } ssl_engine /tmp/evil.so; location ~ ^/y { #\' ${x} $host \\\\ \n\r content_by_lua_block {';
const HOSTILE_LOG_FORMAT = '$remote_addr "; } ssl_engine /tmp/evil.so; # \n\r \\ \' ${request_uri} [$namespace/$ingress_name]';

/** Appended to every value of a live-state field (endpoint, certificate id and PEM): it must appear nowhere. */
const LIVE_ONLY = 'LIVE-STATE-ONLY';
const liveOnly = (value: string): string => `${value}${LIVE_ONLY}`;

/** The Lua blocks a rendering may hold: each body is one of these constants (the ports are the defaults). */
const EXPECTED_LUA: ReadonlyArray<readonly string[]> = [
  [
    'init_by_lua_block',
    'portico_balancer = require("portico.balancer")',
    'portico_configuration = require("portico.configuration")',
    'portico_certificate = require("portico.certificate")',
    'portico_routes = require("portico.routes")',
    'portico_external_auth = require("portico.external_auth")',
    'portico_authentication = require("portico.authentication")',
    'portico_worker_malloc = require("portico.worker_malloc")',
    'portico_keepalive_drain = require("portico.keepalive_drain")',
    'portico_balancer.init({ status_port = 10246, portico_ports = { 80, 443, 8181, 10246 }, refuse_loopback = false })',
  ],
  ['init_worker_by_lua_block', 'portico_worker_malloc.init_worker()'],
  ['server_rewrite_by_lua_block', 'portico_routes.route()'],
  ['balancer_by_lua_block', 'portico_balancer.balance()'],
  ['ssl_certificate_by_lua_block', 'portico_certificate.call()'],
  ['ssl_client_hello_by_lua_block', 'portico_certificate.client_hello()'],
  ['rewrite_by_lua_block', 'portico_balancer.rewrite()'],
  ['log_by_lua_block', 'portico_balancer.log()'],
  ['content_by_lua_block', 'portico_configuration.handle_backends()'],
  ['content_by_lua_block', 'portico_configuration.handle_certificates()'],
  ['content_by_lua_block', 'portico_configuration.handle_routes()'],
  ['content_by_lua_block', 'portico_configuration.handle_authentication()'],
  ['content_by_lua_block', 'portico_configuration.handle_initialized()'],
  ['content_by_lua_block', 'portico_keepalive_drain.handle()'],
];

/** How nginx must read back a user string that went through captureTemplate(): `$1`..`$9` kept, every other `$` as `${dollar}`. */
const asCaptureTemplate = (value: string): string => value.replace(/\$(?![1-9])/g, '${dollar}');

const serviceBackendName = (value: string): string => `${value}#svc`;
/** The value as a namespace, Ingress, Service or port name: the model admits no space there (ingressNames.ts), the rest stays. */
const asName = (value: string): string => value.replaceAll(' ', '_');

/** One configuration shape, filled with `values` (benign or hostile) in every user-controlled string field. */
function scenario(values: readonly string[], regexPath: string, logFormat: string): Configuration {
  return configuration({
    servers: [
      server('_', []),
      ...values.flatMap((value) => [
        server(
          value,
          [
            location(`/${value}`, 'exact', value, { ingress: ingressRef(asName(value), asName(value)) }),
            location(`/prefix/${value}`, 'prefix', serviceBackendName(value), { ingress: ingressRef(asName(value), asName(value)) }),
            location(`/rewrite/${value}`, 'prefix', web.name, { annotations: { rewrite: { target: `/$1${value}` } } }),
          ],
          { tls: true, certificate: liveOnly(value) },
        ),
        // auth-tls-*: the error page and the CN regex are the user's strings that reach the server block.
        clientCertificatesOf(value),
        server(`*.${value}`, [location('/', 'prefix', web.name, { ingress: ingressRef(asName(value), asName(value)) })]),
      ]),
      server('regex.example.com', [
        location(regexPath, 'regex', web.name, { annotations: { rewrite: { target: `/$1${regexPath}`, useRegex: true } } }),
      ]),
    ],
    backends: [
      web,
      ...values.map((value) =>
        backend(serviceBackendName(value), [{ address: liveOnly(value), port: Number.NaN }], {
          namespace: asName(value),
          name: asName(value),
          port: asName(value),
        }),
      ),
    ],
    certificates: values.map((value) => ({
      ...certificate(liveOnly(value), [value]),
      certificatePem: liveOnly(value),
      keyPem: liveOnly(value),
    })),
    defaultCertificate: liveOnly(values[0] ?? ''),
    settings: { logFormatUpstream: logFormat },
  });
}

/** A CA bundle the hostile configurations name (nginx -t reads it). */
const CA_FILE = 'hostile-ca-ca-0123456789abcdef.pem';

/** A host of its own verifying client certificates with `value` as its error page and CN regex. */
function clientCertificatesOf(value: string): Server {
  const verify: ClientCertificateAnnotations = {
    secret: { namespace: undefined, name: 'ca' },
    verifyClient: 'on',
    verifyDepth: 1,
    errorPage: value,
    passCertificateToUpstream: true,
    matchCn: value,
  };
  return {
    ...server(`${value}.mtls`, [location('/', 'prefix', web.name, { ingress: ingressRef(asName(value), asName(value)) })]),
    clientCertificates: { ingress: ingressRef(asName(value), asName(value)), verify, caFile: CA_FILE, crlFile: undefined },
  };
}

/** The same configuration without any live state. */
function withoutLiveState(config: Configuration): Configuration {
  return {
    ...config,
    servers: config.servers.map((host) => ({ ...host, certificate: undefined })),
    backends: config.backends.map((entry) => ({ ...entry, endpoints: [] })),
    certificates: [],
    secretFiles: [],
    defaultCertificate: undefined,
  };
}

const hostile = scenario(HOSTILE_STRINGS, HOSTILE_REGEX_PATH, HOSTILE_LOG_FORMAT);
const benign = scenario(
  HOSTILE_STRINGS.map((_, index) => `benign${index}`),
  '/regex',
  '$remote_addr',
);

describe('hostile values in user-controlled fields', () => {
  const rendered = renderNginxConf(hostile, context);
  const tree = parseNginxConf(rendered);

  test('the directive tree has exactly the structure of a benign rendering', () => {
    assert.deepEqual(skeleton(tree), skeleton(parseNginxConf(renderNginxConf(benign, context))));
  });

  test('nginx reads back exactly the arguments the builder was given', () => {
    assert.deepEqual(tree, expectedWords(buildNginxConf(hostile, context)));
  });

  test('hostile endpoints and certificates (ids, PEMs, default) appear nowhere: the text is that of no live state', () => {
    assert.ok(!rendered.includes(LIVE_ONLY));
    assert.equal(rendered, renderNginxConf(withoutLiveState(hostile), context));
  });

  test("every Lua block is one of Portico's constant bodies, and only where it belongs", () => {
    const blocks = luaBlocks(tree);
    for (const block of blocks)
      assert.ok(
        EXPECTED_LUA.some((expected) => JSON.stringify(expected) === JSON.stringify(block)),
        JSON.stringify(block),
      );
    const count = (name: string): number => blocks.filter(([blockName]) => blockName === name).length;
    assert.equal(count('init_by_lua_block'), 1);
    assert.equal(count('init_worker_by_lua_block'), 1);
    assert.equal(count('balancer_by_lua_block'), 1);
    assert.equal(count('content_by_lua_block'), 6);
    // One TLS context for every server without TLS directives of its own (renderTlsContext.ts): the default server's;
    // the hostile servers that verify client certificates have their own, with its own hook.
    assert.equal(count('ssl_client_hello_by_lua_block'), 1);
    const verifying = hostile.servers.filter(
      (server) => server.clientCertificates !== undefined && !('refused' in server.clientCertificates),
    );
    assert.ok(verifying.length > 0);
    assert.equal(count('ssl_certificate_by_lua_block'), verifying.length);
    // The catch-all's routes of hosts nginx.conf does not have yet.
    assert.equal(count('server_rewrite_by_lua_block'), 1);
    // Plain HTTP upstreams only: the balancer phase decides everything.
    assert.equal(count('rewrite_by_lua_block'), 0);
    // Round robin backends only: nothing to do in the log phase, except in the
    // catch-all's pending-route location, whose backends may be ewma's.
    assert.equal(count('log_by_lua_block'), 1);
  });

  test('no hostile directive exists, and hostile text only sits in the directives meant for user data', () => {
    const names = allDirectives(tree).map((directive) => directive.name);
    for (const injected of ['ssl_engine', 'daemon']) assert.ok(!names.includes(injected), injected);
    assert.deepEqual(
      tree.filter((directive) => directive.name === 'load_module').map((directive) => directive.args),
      [
        ['/usr/share/nginx/modules/ndk_http_module.so'],
        ['/usr/share/nginx/modules/ngx_http_lua_module.so'],
        ['/usr/share/nginx/modules/ngx_http_headers_more_filter_module.so'],
      ],
    );
    assert.equal(
      names.filter((name) => name === 'load_module').length,
      3,
      'only the Lua modules and headers-more (server-tokens off), in the main context',
    );
    assert.equal(names.filter((name) => name === 'include').length, 1, 'only mime.types');
    const carriers = new Set(
      allDirectives(tree)
        .filter((directive) => directive.args.some((arg) => arg.includes('ssl_engine') || arg.includes('/etc/passwd')))
        .map((directive) => directive.name),
    );
    assert.deepEqual([...carriers].sort(), ['error_page', 'if', 'location', 'log_format', 'rewrite', 'server_name', 'set']);
  });

  test('each hostile host, path, name and target is one whole argument where it belongs', () => {
    for (const value of HOSTILE_STRINGS) {
      const host = serverMatching(tree, value);
      assert.deepEqual(
        argsOf(host, 'location'),
        [['=', `/${value}`], ['=', `/prefix/${value}`], [`/prefix/${value}/`], ['=', `/rewrite/${value}`], [`/rewrite/${value}/`], ['/']],
        JSON.stringify(value),
      );

      const exact = locationOf(host, '=', `/${value}`);
      assert.deepEqual(logVariables(exact), {
        $proxy_upstream_name: asText(value),
        $namespace: asText(asName(value)),
        $ingress_name: asText(asName(value)),
        $service_name: '',
        $service_port: '',
        $location_path: asText(`/${value}`),
      });
      // An unknown backend goes to Lua, which sends it to the no-endpoints server (503).
      assert.deepEqual(argsOf(exact, 'return'), []);
      assert.deepEqual(luaBlocks([exact]), BALANCER_HOOKS);
      assert.deepEqual(argsOf(exact, 'proxy_pass'), [['http://upstream_balancer']]);

      const prefix = locationOf(host, `/prefix/${value}/`);
      assert.deepEqual(logVariables(prefix), {
        $proxy_upstream_name: asText(serviceBackendName(value)),
        $namespace: asText(asName(value)),
        $ingress_name: asText(asName(value)),
        $service_name: asText(asName(value)),
        $service_port: asText(asName(value)),
        $location_path: asText(`/prefix/${value}`),
      });
      assert.deepEqual(argsOf(prefix, 'proxy_pass'), [['http://upstream_balancer']]);

      const [rewrite] = argsOf(locationOf(host, `/rewrite/${value}/`), 'rewrite');
      assert.equal(rewrite?.length, 3);
      assert.equal(new RegExp(rewrite?.[0] ?? '').exec(`/rewrite/${value}/tail`)?.[0], `/rewrite/${value}`, 'matches the literal prefix');
      assert.equal(rewrite?.[1], asCaptureTemplate(`/$1${value}`));

      const verifying = serverMatching(tree, `${value}.mtls`);
      assert.deepEqual(argsOf(verifying, 'error_page'), [['495', '496', '=', asText(value)]]);
      const [condition] = named(verifying.children, 'if');
      assert.deepEqual(condition?.args, ['(', '$ssl_client_s_dn', '!~', matchLimited(value), ')']);
      assert.deepEqual(argsOf(verifying, 'ssl_client_certificate'), [[`${context.paths.secretFiles}/${CA_FILE}`]]);

      const wildcard = serverMatching(tree, `label.${value}`);
      assert.ok(!new RegExp((argsOf(wildcard, 'server_name')[0]?.[0] ?? '').slice(1)).test(`a.b.${value}`), 'one label only');
      assert.deepEqual(logVariables(locationOf(wildcard, '/')).$namespace, asText(asName(value)));
    }
  });

  test('the hostile regex path and log format are single arguments', () => {
    const regexServer = serverMatching(tree, 'regex.example.com');
    const regexLocation = locationOf(regexServer, '~*', matchLimited(`^${HOSTILE_REGEX_PATH}`));
    assert.deepEqual(argsOf(regexLocation, 'rewrite'), [
      [matchLimited(`(?i)^${HOSTILE_REGEX_PATH}`), asCaptureTemplate(`/$1${HOSTILE_REGEX_PATH}`), 'break'],
    ]);
    const http = named(tree, 'http')[0];
    assert.deepEqual(argsOf(http ?? { name: '', args: [] }, 'log_format'), [['upstreaminfo', HOSTILE_LOG_FORMAT]]);
  });

  test('passes nginx -t', { skip: missingNginx }, async () => {
    const ca = await createClientCertificateAuthority('hostile-ca');
    try {
      await nginxSyntaxCheck(rendered, context, [{ id: CA_FILE, secret: 'default/ca', contents: ca.caPem }]);
    } finally {
      await ca.close();
    }
  });
});

/** The one server whose server_name (exact or regex) matches `host`. */

describe('hostile values in validated fields are refused with a clear error; live-state fields are not read', () => {
  const render = (config: Configuration): string => renderNginxConf(config, context);
  const withLocation = (overrides: Parameters<typeof annotations>[0]): Configuration =>
    configuration({ servers: [server('a.example.com', [location('/', 'prefix', web.name, { annotations: overrides })])], backends: [web] });

  for (const value of [...HOSTILE_STRINGS, LONG, '', '../../etc/passwd', '.hidden']) {
    const label = JSON.stringify(value.slice(0, 30));

    test(`certificate id and PEM, endpoint, unreferenced backend name: live state, never read ${label}`, () => {
      const live = configuration({
        servers: [
          server('_', [], { certificate: value }),
          server('a.example.com', [location('/', 'prefix', 'b')], { tls: true, certificate: value }),
        ],
        backends: [
          backend('b', [
            { address: value, port: Number.NaN },
            { address: '10.0.0.1', port: -1 },
          ]),
          backend(value, [{ address: value, port: 80 }]),
        ],
        certificates: [{ ...certificate(value, [value]), certificatePem: value, keyPem: value }],
        defaultCertificate: value,
      });
      const structureOnly = configuration({
        servers: [server('_', []), server('a.example.com', [location('/', 'prefix', 'b')], { tls: true })],
        backends: [backend('b', [])],
      });
      assert.equal(render(live), render(structureOnly));
    });

    test(`client certificates: SecretFile id, verify mode ${label}`, () => {
      const verifying = clientCertificatesOf('a.example.com');
      const withClientCertificates = (change: Partial<{ caFile: string; crlFile: string; verifyClient: ClientVerification }>) => {
        const wanted = verifying.clientCertificates;
        assert.ok(wanted && 'verify' in wanted);
        const { verifyClient = wanted.verify.verifyClient, ...files } = change;
        return configuration({
          servers: [{ ...verifying, clientCertificates: { ...wanted, ...files, verify: { ...wanted.verify, verifyClient } } }],
          backends: [web],
        });
      };
      if (!/^[a-z0-9.-]+$/.test(value)) {
        assert.throws(() => render(withClientCertificates({ caFile: value })), /not a secret file id/);
        assert.throws(() => render(withClientCertificates({ crlFile: value })), /not a secret file id/);
      }
      // `=` is one of Portico's own keywords: the type ClientVerification is what keeps it out.
      if (value !== '=') {
        assert.throws(() => render(withClientCertificates({ verifyClient: value as ClientVerification })), /invalid keyword/);
      }
    });

    test(`basic auth realm, Secret, users and hashes: live state, only a numeric key in nginx.conf ${label}`, () => {
      const live = liveOnly(value);
      const basicAuth = {
        type: 'basic' as const,
        realm: live,
        secret: { namespace: live, name: live },
        secretType: 'auth-file' as const,
        users: { secret: live, id: live, entries: { [live]: live } },
      };
      const rendered = render(withLocation({ basicAuth, satisfy: 'any' }));
      assert.ok(!rendered.includes(LIVE_ONLY));
      const block = locationOf(serverMatching(parseNginxConf(rendered), 'a.example.com'), '/');
      const [access] = luaBlocks([block]);
      assert.match(access?.join(' ') ?? '', /^access_by_lua_block portico_authentication\.access\(\{ key = \d+ \}\)$/);
      assert.deepEqual(argsOf(block, 'satisfy'), [['any']]);
      // A Secret the model could not use: 503 before the access phase, no Lua.
      const refused = locationOf(
        serverMatching(parseNginxConf(render(withLocation({ basicAuth: { ...basicAuth, users: undefined } }))), 'a.example.com'),
        '/',
      );
      assert.deepEqual(argsOf(refused, 'return'), [['503']]);
      assert.deepEqual(luaBlocks([refused]), []);
      assert.throws(() => render(withLocation({ satisfy: value as 'any' })), /invalid satisfy/);
    });

    test(`CIDR, body size, backend protocol ${label}`, () => {
      assert.throws(() => render(withLocation({ ipAccess: { allow: [value] } })), /invalid CIDR/);
      assert.throws(() => render(withLocation({ ipAccess: { deny: [value] } })), /invalid CIDR/);
      assert.throws(() => render(withLocation({ proxy: { bodySize: value } })), /invalid size/);
      assert.throws(() => render(withLocation({ backendProtocol: value as BackendProtocol })), /unknown backend protocol/);
    });

    if (!value.startsWith('/')) {
      test(`exact and prefix paths must start with "/" ${label}`, () => {
        for (const match of ['exact', 'prefix'] as const) {
          assert.throws(
            () => render(configuration({ servers: [server('a.example.com', [location(value, match, web.name)])] })),
            /must start with "\/"/,
          );
        }
      });
    }
  }

  test('numbers: timeouts', () => {
    for (const value of [Number.NaN, -1, 1.5, Number.POSITIVE_INFINITY]) {
      assert.throws(() => render(withLocation({ proxy: { readTimeout: value } })), /invalid number of seconds/);
    }
  });

  test('strings nginx cannot hold: longer than its parser buffer, or with NUL', () => {
    for (const bad of [LONG, 'a\0b']) {
      const error = bad === LONG ? /too long/ : /NUL/;
      const fields: Array<[string, Configuration]> = [
        ['hostname', configuration({ servers: [server(bad, [])] })],
        ['wildcard hostname', configuration({ servers: [server(`*.${bad}`, [])] })],
        ['path', configuration({ servers: [server('a.example.com', [location(`/${bad}`, 'exact', web.name)])] })],
        ['regex path', configuration({ servers: [server('a.example.com', [location(bad, 'regex', web.name)])] })],
        [
          'namespace',
          configuration({ servers: [server('a.example.com', [location('/', 'prefix', web.name, { ingress: ingressRef(bad, 'x') })])] }),
        ],
        [
          'ingress name',
          configuration({ servers: [server('a.example.com', [location('/', 'prefix', web.name, { ingress: ingressRef('x', bad) })])] }),
        ],
        ['backend reference', configuration({ servers: [server('a.example.com', [location('/', 'prefix', bad)])] })],
        [
          'service name',
          configuration({
            servers: [server('a.example.com', [location('/', 'prefix', 'b')])],
            backends: [backend('b', [], { name: bad })],
          }),
        ],
        ['rewrite target', withLocation({ rewrite: { target: `/${bad}` } })],
        ['log format', configuration({ settings: { logFormatUpstream: bad } })],
      ];
      for (const [field, config] of fields) assert.throws(() => render(config), error, field);
    }
  });

  test('a name with a space (the model refuses it) is refused, never joined into $portico_location where the maps would split it', () => {
    const spaced = 'a b';
    const fields: Array<[string, Configuration]> = [
      [
        'namespace',
        configuration({ servers: [server('a.example.com', [location('/', 'prefix', web.name, { ingress: ingressRef(spaced, 'x') })])] }),
      ],
      [
        'ingress name',
        configuration({ servers: [server('a.example.com', [location('/', 'prefix', web.name, { ingress: ingressRef('x', spaced) })])] }),
      ],
      [
        'service name',
        configuration({
          servers: [server('a.example.com', [location('/', 'prefix', 'b')])],
          backends: [backend('b', [], { name: spaced })],
        }),
      ],
      [
        'service port',
        configuration({
          servers: [server('a.example.com', [location('/', 'prefix', 'b')])],
          backends: [backend('b', [], { port: spaced })],
        }),
      ],
    ];
    for (const [field, config] of fields) assert.throws(() => render(config), /log field holds a space/, field);
    // The path is the value's last field: it may hold spaces.
    const path = render(configuration({ servers: [server('a.example.com', [location('/a b', 'exact', web.name)])], backends: [web] }));
    assert.match(path, /set \$portico_location "[^"]* \/a b";/);
  });
});

test('a hostile admin setting that renders stays one argument (ssl-ciphers)', () => {
  const ciphers = '"; } ssl_engine /tmp/evil.so; #\nHIGH';
  const tree = parseNginxConf(renderNginxConf(configuration({ settings: { sslCiphers: ciphers } }), context));
  const http = named(tree, 'http')[0] ?? { name: '', args: [] };
  assert.deepEqual(argsOf(http, 'ssl_ciphers'), [[ciphers]]);
  assert.ok(!allDirectives(tree).some((directive) => directive.name === 'ssl_engine'));
});
