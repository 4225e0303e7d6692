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
  ExternalAuth,
  Location,
  LocationAnnotations,
  RateLimits,
  Server,
} from '../../../../src/model/types.js';
import { annotations, backend, certificate, configuration, ingressRef, location, server, testContext, BALANCER_HOOKS } from './fixtures.js';
import { externalAuth, withAuth } from './externalAuthFixtures.js';
import { missingNginx, nginxSyntaxCheck } from './nginxPrefix.js';
import { createClientCertificateAuthority } from '../../../support/clientCertificateAuthority.js';
import { matchLimited } from '../../../../src/dataplane/nginx/render/regex.js';
import { parseNginxConf, type ParsedDirective } from './nginxConfTokenizer.js';
import { allDirectives, argsOf, expectedWords, locationOf, luaBlocks, named, servers, skeleton } from './parsedTree.js';

const HOSTILE_STRINGS = [
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

const LONG = 'x'.repeat(10_000);

/** A regex path that is hostile to the config syntax yet a valid PCRE (the model validates regexes). */
const HOSTILE_REGEX_PATH = '/r"; } ssl_engine /tmp/evil.so; location ~ ^/y { #\' ${x} $host \\\\ \n\r content_by_lua_block {';
const HOSTILE_LOG_FORMAT = '$remote_addr "; } ssl_engine /tmp/evil.so; # \n\r \\ \' ${request_uri} [$namespace/$ingress_name]';

const web = backend('default-web-80', [{ address: '10.0.0.1', port: 8080 }]);

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
    'portico_balancer.init({ status_port = 10246, portico_ports = { 80, 443, 8181, 10246 }, refuse_loopback = false })',
  ],
  ['server_rewrite_by_lua_block', 'portico_routes.route()'],
  ['balancer_by_lua_block', 'portico_balancer.balance()'],
  ['ssl_certificate_by_lua_block', 'portico_certificate.call()'],
  ['rewrite_by_lua_block', 'portico_balancer.rewrite()'],
  ['log_by_lua_block', 'portico_balancer.log()'],
  ['content_by_lua_block', 'portico_configuration.handle_backends()'],
  ['content_by_lua_block', 'portico_configuration.handle_certificates()'],
  ['content_by_lua_block', 'portico_configuration.handle_routes()'],
  ['content_by_lua_block', 'portico_configuration.handle_initialized()'],
];

/** How nginx must read back a user string that went through text(): every `$` as `${dollar}`. */
const asText = (value: string): string => value.replaceAll('$', '${dollar}');
/** ... and through captureTemplate(): `$1`..`$9` kept. */
const asCaptureTemplate = (value: string): string => value.replace(/\$(?![1-9])/g, '${dollar}');

const serviceBackendName = (value: string): string => `${value}#svc`;

/** One configuration shape, filled with `values` (benign or hostile) in every user-controlled string field. */
function scenario(values: readonly string[], regexPath: string, logFormat: string): Configuration {
  return configuration({
    servers: [
      server('_', []),
      ...values.flatMap((value) => [
        server(
          value,
          [
            location(`/${value}`, 'exact', value, { ingress: ingressRef(value, value) }),
            location(`/prefix/${value}`, 'prefix', serviceBackendName(value), { ingress: ingressRef(value, value) }),
            location(`/rewrite/${value}`, 'prefix', web.name, { annotations: { rewrite: { target: `/$1${value}` } } }),
          ],
          { tls: true, certificate: liveOnly(value) },
        ),
        // auth-tls-*: the error page and the CN regex are the user's strings that reach the server block.
        clientCertificatesOf(value),
        server(`*.${value}`, [location('/', 'prefix', web.name, { ingress: ingressRef(value, value) })]),
      ]),
      server('regex.example.com', [
        location(regexPath, 'regex', web.name, { annotations: { rewrite: { target: `/$1${regexPath}`, useRegex: true } } }),
      ]),
    ],
    backends: [
      web,
      ...values.map((value) =>
        backend(serviceBackendName(value), [{ address: liveOnly(value), port: Number.NaN }], {
          namespace: value,
          name: value,
          port: value,
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
    ...server(`${value}.mtls`, [location('/', 'prefix', web.name, { ingress: ingressRef(value, value) })]),
    clientCertificates: { ingress: ingressRef(value, value), verify, caFile: CA_FILE, crlFile: undefined },
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
const context = testContext();

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
    assert.equal(count('balancer_by_lua_block'), 1);
    assert.equal(count('content_by_lua_block'), 4);
    assert.equal(count('ssl_certificate_by_lua_block'), hostile.servers.length);
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
      [['/usr/share/nginx/modules/ndk_http_module.so'], ['/usr/share/nginx/modules/ngx_http_lua_module.so']],
    );
    assert.equal(names.filter((name) => name === 'load_module').length, 2, 'only the Lua modules, in the main context');
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
      assert.deepEqual(variables(exact), {
        $proxy_upstream_name: asText(value),
        $namespace: asText(value),
        $ingress_name: asText(value),
        $service_name: '',
        $service_port: '',
        $location_path: asText(`/${value}`),
      });
      // An unknown backend goes to Lua, which sends it to the no-endpoints server (503).
      assert.deepEqual(argsOf(exact, 'return'), []);
      assert.deepEqual(luaBlocks([exact]), BALANCER_HOOKS);
      assert.deepEqual(argsOf(exact, 'proxy_pass'), [['http://upstream_balancer']]);

      const prefix = locationOf(host, `/prefix/${value}/`);
      assert.deepEqual(variables(prefix), {
        $proxy_upstream_name: asText(serviceBackendName(value)),
        $namespace: asText(value),
        $ingress_name: asText(value),
        $service_name: asText(value),
        $service_port: asText(value),
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
      assert.deepEqual(variables(locationOf(wildcard, '/')).$namespace, asText(value));
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
function serverMatching(tree: readonly ParsedDirective[], host: string): ParsedDirective {
  const matching = servers(tree).filter((block) =>
    argsOf(block, 'server_name').some(([name = '']) => (name.startsWith('~') ? new RegExp(name.slice(1), 'i').test(host) : name === host)),
  );
  assert.equal(matching.length, 1, `servers matching ${JSON.stringify(host)}`);
  const [found] = matching;
  assert.ok(found);
  return found;
}

function variables(block: ParsedDirective): Record<string, string> {
  return Object.fromEntries(argsOf(block, 'set').map(([name = '', value = '']) => [name, value]));
}

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
});

test('a hostile admin setting that renders stays one argument (ssl-ciphers)', () => {
  const ciphers = '"; } ssl_engine /tmp/evil.so; #\nHIGH';
  const tree = parseNginxConf(renderNginxConf(configuration({ settings: { sslCiphers: ciphers } }), context));
  const http = named(tree, 'http')[0] ?? { name: '', args: [] };
  assert.deepEqual(argsOf(http, 'ssl_ciphers'), [[ciphers]]);
  assert.ok(!allDirectives(tree).some((directive) => directive.name === 'ssl_engine'));
});

describe('hostile Ingress names and settings in rate limits', () => {
  const limits: RateLimits = {
    connections: 2,
    requestsPerSecond: 10,
    requestsPerMinute: 60,
    burstMultiplier: 5,
    allowlist: ['10.0.0.0/8'],
    rateKilobytes: 1,
    rateAfterKilobytes: 1,
  };
  const limitedScenario = (values: readonly string[], zoneVariable: string): Configuration =>
    configuration({
      servers: [
        server('_', []),
        server(
          'limits.example',
          values.map((value, index) =>
            location(`/${index}`, 'exact', web.name, { ingress: ingressRef(value, value), annotations: { limits } }),
          ),
        ),
      ],
      backends: [web],
      settings: { limitConnZoneVariable: zoneVariable },
    });
  // The model refuses a zone variable that is not nginx variables; the renderer still keeps any string one argument.
  const hostileZoneVariable = '"; } ssl_engine /tmp/evil.so; #';
  const limitedHostile = limitedScenario(HOSTILE_STRINGS, hostileZoneVariable);
  const rendered = renderNginxConf(limitedHostile, context);
  const tree = parseNginxConf(rendered);
  const http = named(tree, 'http')[0] ?? { name: '', args: [] };

  test('the structure is that of benign names, and nginx reads back the builder arguments', () => {
    const benignNames = HOSTILE_STRINGS.map((_, index) => `benign${index}`);
    assert.deepEqual(skeleton(tree), skeleton(parseNginxConf(renderNginxConf(limitedScenario(benignNames, '$remote_addr'), context))));
    assert.deepEqual(tree, expectedWords(buildNginxConf(limitedHostile, context)));
  });

  test('every zone name is one safe token, distinct per Ingress, and the hostile zone variable one map value', () => {
    const zones = [...argsOf(http, 'limit_conn_zone'), ...argsOf(http, 'limit_req_zone')].map((args) => args[1] ?? '');
    assert.equal(zones.length, 3 * HOSTILE_STRINGS.length);
    assert.equal(new Set(zones).size, zones.length);
    for (const zone of zones) assert.match(zone, /^zone=[A-Za-z0-9._-]{1,300}_(conn|rps|rpm):5m$/);
    const keyMaps = named(http.children, 'map').filter((map) => map.args[1]?.startsWith('$limit_'));
    assert.equal(keyMaps.length, HOSTILE_STRINGS.length);
    for (const map of keyMaps) assert.deepEqual(map.children?.[0]?.args, [hostileZoneVariable]);
    assert.ok(!allDirectives(tree).some((directive) => directive.name === 'ssl_engine'));
  });

  test('passes nginx -t', { skip: missingNginx }, async () => {
    await nginxSyntaxCheck(rendered, context);
  });

  test('validated fields refuse: allowlist entries, counts, a zone variable with a stray "$"', () => {
    const render = (overrides: Partial<RateLimits>, zoneVariable = '$binary_remote_addr'): string =>
      renderNginxConf(
        configuration({
          servers: [server('a.example.com', [location('/', 'prefix', web.name, { annotations: { limits: { ...limits, ...overrides } } })])],
          backends: [web],
          settings: { limitConnZoneVariable: zoneVariable },
        }),
        context,
      );
    for (const value of HOSTILE_STRINGS) assert.throws(() => render({ allowlist: [value] }), /invalid CIDR/);
    const fields = ['connections', 'requestsPerSecond', 'requestsPerMinute', 'rateKilobytes'] as const;
    for (const value of [1.5, Number.POSITIVE_INFINITY]) {
      for (const field of fields) {
        assert.throws(() => render({ [field]: value }), /invalid (integer|request rate|size)/, `${field} ${value}`);
      }
    }
    // Not above 0: that limit is not rendered at all.
    for (const value of [Number.NaN, -1]) {
      for (const field of fields) {
        const directive = {
          connections: 'limit_conn ',
          requestsPerSecond: 'r/s;',
          requestsPerMinute: 'r/m;',
          rateKilobytes: 'limit_rate ',
        }[field];
        assert.ok(!render({ [field]: value }).includes(directive), `${field} ${value}`);
      }
    }
    assert.throws(() => render({}, '$host ${x} $ ${'), /malformed nginx variable reference/);
  });
});

describe('hostile ModSecurity snippets and transaction ids', () => {
  // Valid ModSecurity (so nginx -t loads it), hostile to nginx's syntax: quotes, braces, semicolons, variables, a backslash.
  const HOSTILE_RULE = `SecRule ARGS "@contains evil" "id:4242,phase:2,log,pass,msg:'\\"; } ssl_engine /tmp/evil.so; server { # a;b{c}d $host \${x}'"`;
  const HOSTILE_TRANSACTION_ID = '"; } ssl_engine /tmp/evil.so; #${request_id}';
  const modSecurityConfiguration = (snippet: string, transactionId: string): Configuration => {
    const base = location('/', 'prefix', web.name);
    const annotated = {
      ...base,
      annotations: { ...annotations(), modSecurity: { enable: true, owaspCoreRules: false, snippet, transactionId } },
    };
    return configuration({ servers: [server('_', []), server('waf.example.com', [annotated])], backends: [web] });
  };
  const modSecurityContext = testContext({ paths: { modSecurityAuditLog: '/tmp/portico-hostile-modsec-audit.log' } });
  const hostileModSecurity = modSecurityConfiguration(HOSTILE_RULE, HOSTILE_TRANSACTION_ID);
  const rendered = renderNginxConf(hostileModSecurity, modSecurityContext);
  const tree = parseNginxConf(rendered);

  test('each is one whole argument of its directive, and the structure is that of a benign rendering', () => {
    const waf = locationOf(serverMatching(tree, 'waf.example.com'), '/');
    assert.deepEqual(argsOf(waf, 'modsecurity_rules'), [[HOSTILE_RULE]]);
    assert.deepEqual(argsOf(waf, 'modsecurity_transaction_id'), [[HOSTILE_TRANSACTION_ID]]);
    assert.deepEqual(tree, expectedWords(buildNginxConf(hostileModSecurity, modSecurityContext)));
    const benignRendering = renderNginxConf(modSecurityConfiguration('SecRuleEngine On', 'tx-${request_id}'), modSecurityContext);
    assert.deepEqual(skeleton(tree), skeleton(parseNginxConf(benignRendering)));
    assert.ok(!allDirectives(tree).some((directive) => directive.name === 'ssl_engine'));
  });

  test('a transaction id whose "$" starts no variable reference is refused', () => {
    for (const value of HOSTILE_STRINGS.filter((candidate) => /\$(?![A-Za-z0-9_]|\{[A-Za-z0-9_]+\})/.test(candidate))) {
      assert.throws(
        () => renderNginxConf(modSecurityConfiguration('SecRuleEngine On', value), modSecurityContext),
        /malformed nginx variable/,
      );
    }
  });

  test('passes nginx -t with the ModSecurity module', { skip: missingNginx }, async () => {
    await nginxSyntaxCheck(rendered, modSecurityContext);
  });
});

describe('hostile backend TLS values (proxy-ssl-*)', () => {
  const withBackendTls = (tls: Partial<NonNullable<LocationAnnotations['backendTls']>>): Configuration =>
    configuration({
      servers: [
        server('a.example.com', [
          location('/', 'prefix', web.name, {
            annotations: {
              backendProtocol: 'HTTPS',
              backendTls: {
                secret: { namespace: undefined, name: 'tls' },
                files: { trustedCertificate: 'app-tls-ca-0.pem', clientCertificate: 'app-tls-client-0.pem' },
                verify: true,
                verifyDepth: 1,
                ciphers: 'HIGH',
                protocols: ['TLSv1.2'],
                name: undefined,
                serverName: false,
                ...tls,
              },
            },
          }),
        ]),
      ],
      backends: [web],
    });
  const directive = (config: Configuration, name: string): string[][] => {
    const tree = parseNginxConf(renderNginxConf(config, context));
    assert.ok(!allDirectives(tree).some((found) => found.name === 'ssl_engine'));
    return argsOf(locationOf(serverMatching(tree, 'a.example.com'), '/'), name);
  };

  test('a hostile cipher list is one argument of proxy_ssl_ciphers', () => {
    for (const value of HOSTILE_STRINGS) assert.deepEqual(directive(withBackendTls({ ciphers: value }), 'proxy_ssl_ciphers'), [[value]]);
  });

  test('a hostile proxy-ssl-name is one argument of proxy_ssl_name, or refused for a malformed variable reference', () => {
    for (const value of HOSTILE_STRINGS) {
      const config = withBackendTls({ name: value });
      if (value.includes('$')) assert.throws(() => renderNginxConf(config, context), /malformed nginx variable reference/);
      else assert.deepEqual(directive(config, 'proxy_ssl_name'), [[value]]);
    }
  });

  test('protocols, file ids and depths outside their closed sets are refused', () => {
    for (const value of [...HOSTILE_STRINGS, LONG, '', '../../etc/passwd']) {
      assert.throws(() => renderNginxConf(withBackendTls({ protocols: [value] }), context), /unknown ssl-protocols entry/);
      for (const files of [
        { trustedCertificate: value, clientCertificate: undefined },
        { trustedCertificate: undefined, clientCertificate: value },
      ]) {
        assert.throws(() => renderNginxConf(withBackendTls({ files }), context), /not a secret file id|too long/);
      }
    }
    for (const depth of [Number.NaN, -1, 1.5]) {
      assert.throws(() => renderNginxConf(withBackendTls({ verifyDepth: depth }), context), /invalid integer/);
    }
  });
});

describe('hostile values in external auth fields', () => {
  /** Fields whose `$` nginx interpolates on purpose take the hostile text without its `$` (a stray `$` is refused, below). */
  const dollarless = (value: string): string => value.replaceAll('$', '');
  const authLocation = (value: string, index: number): Location =>
    withAuth(
      location(`/auth${index}`, 'prefix', web.name, { ingress: ingressRef('app', 'auth') }),
      externalAuth({
        url: { scheme: 'https', host: '127.0.0.1', port: 9000, path: `/check?v=${dollarless(value)}` },
        signin: `https://sign.example/${dollarless(value)}`,
        signinRedirectParam: dollarless(value),
        requestRedirect: value,
        cacheKey: dollarless(value),
        proxySetHeaders: [['X-Hostile', dollarless(value)]],
        responseHeaders: ['X-User'],
      }),
    );
  const authScenario = (values: readonly string[]): Configuration =>
    configuration({ servers: [server('auth.example', values.map(authLocation))], backends: [web] });
  const hostileAuth = authScenario(HOSTILE_STRINGS);
  const rendered = renderNginxConf(hostileAuth, context);
  const tree = parseNginxConf(rendered);

  test('the structure is that of a benign rendering, and nginx reads back exactly the arguments given', () => {
    const benignAuth = authScenario(HOSTILE_STRINGS.map((_, index) => `benign${index}`));
    assert.deepEqual(skeleton(tree), skeleton(parseNginxConf(renderNginxConf(benignAuth, context))));
    assert.deepEqual(tree, expectedWords(buildNginxConf(hostileAuth, context)));
    const names = allDirectives(tree).map((directive) => directive.name);
    assert.ok(!names.includes('ssl_engine'));
    assert.equal(names.filter((name) => name === 'load_module').length, 2);
  });

  test('each hostile value is one whole argument of the directive meant for it', () => {
    const host = serverMatching(tree, 'auth.example');
    const authLocations = named(host.children, 'location').filter((block) => block.args[1]?.startsWith('/_external-auth-'));
    assert.equal(authLocations.length, HOSTILE_STRINGS.length);
    HOSTILE_STRINGS.forEach((value) => {
      const block = authLocations.find((candidate) => argsOf(candidate, 'proxy_pass')[0]?.[0]?.endsWith(`/check?v=${dollarless(value)}`));
      assert.ok(block, JSON.stringify(value));
      const headers = Object.fromEntries(argsOf(block, 'proxy_set_header').map(([name = '', header = '']) => [name, header]));
      assert.equal(headers['X-Auth-Request-Redirect'], asText(value));
      assert.equal(headers['X-Hostile'], dollarless(value));
      assert.equal(argsOf(block, 'proxy_cache_key')[0]?.[0], `auth.example${block.args[1] ?? ''}${dollarless(value)}`);
      assert.deepEqual(argsOf(block, 'proxy_ssl_name'), [['127.0.0.1']]);
    });
  });

  test('passes nginx -t', { skip: missingNginx }, async () => {
    await nginxSyntaxCheck(rendered, context);
  });

  const KEEPALIVE = { connections: 4, requests: 100, timeoutSeconds: 10, shareVars: false };

  test('values of validated kinds are refused: host, method, header names, stray `$`', () => {
    const render = (auth: ExternalAuth): string =>
      renderNginxConf(
        configuration({ servers: [server('a.example', [withAuth(location('/', 'prefix', web.name), auth)])], backends: [web] }),
        context,
      );
    for (const value of HOSTILE_STRINGS) {
      const url = { scheme: 'http' as const, host: value, port: 80, path: '' };
      assert.throws(() => render(externalAuth({ url })), /invalid host/);
      assert.throws(() => render(externalAuth({ method: value })), /invalid HTTP method/);
      // `ssl_engine` is a header name like any other: harmless as one.
      if (/^[A-Za-z0-9_-]+$/.test(value)) continue;
      assert.throws(() => render(externalAuth({ responseHeaders: [value] })), /invalid (header name|variable name)/);
      // auth-keepalive's Lua check reads the names from a variable: refused all the same.
      assert.throws(() => render(externalAuth({ responseHeaders: [value], keepalive: KEEPALIVE })), /invalid (header name|variable name)/);
      assert.throws(() => render(externalAuth({ proxySetHeaders: [[value, 'x']] })), /invalid header name/);
    }
    for (const stray of ['$', '${', 'a$ b', '${x']) {
      assert.throws(() => render(externalAuth({ cacheKey: stray })), /malformed nginx variable/);
      assert.throws(() => render(externalAuth({ proxySetHeaders: [['X-A', stray]] })), /malformed nginx variable/);
    }
  });
});
