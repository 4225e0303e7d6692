// The ingress-nginx-shaped nginx.conf bench/render.ts loads beside Portico's
// (bench/support/ingressNginxShapedConf.ts): nginx accepts it, and it has
// ingress-nginx's shape for the synthetic cluster: one server per host, the
// locations ingress-nginx writes for each path, in its order, each with the
// template's per-location body.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IngressAcceptance } from '../../src/controller/ingressAcceptance.js';
import { parseIngressAnnotations } from '../../src/model/annotations/parseIngressAnnotations.js';
import { buildConfiguration } from '../../src/model/buildConfiguration.js';
import { DEFAULT_SETTINGS } from '../../src/model/settings/globalSettings.js';
import type { Configuration } from '../../src/model/types.js';
import { Store } from '../../src/store/store.js';
import { ingressNginxShapedConf } from '../../bench/support/ingressNginxShapedConf.js';
import { INGRESS_NGINX_LUA, writeIngressNginxLuaStubs } from '../../bench/support/ingressNginxLuaStubs.js';
import {
  ANNOTATIONS_PREFIX,
  STORE_SETTINGS,
  syntheticCluster,
  wildcardCertificate,
  type SyntheticCluster,
} from '../../bench/support/syntheticCluster.js';
import { testContext } from '../dataplane/nginx/render/fixtures.js';
import { missingNginx, nginxSyntaxCheck } from '../dataplane/nginx/render/nginxPrefix.js';
import { parseNginxConf, type ParsedDirective } from '../dataplane/nginx/render/nginxConfTokenizer.js';
import { argsOf, named, only, serverNamed, servers } from '../dataplane/nginx/render/parsedTree.js';

// Enough for every shape the cluster makes: TLS (i % 3 == 0), a second host (odd i), regex mode (i % 10 == 5), annotations (i % 4, i % 7).
const INGRESSES = 30;

let luaDir: string;
let cluster: SyntheticCluster;
let configuration: Configuration;
let conf: string;
let tree: ParsedDirective[];
const context = testContext();

before(async () => {
  luaDir = await mkdtemp(join(tmpdir(), 'portico-shaped-lua-'));
  await writeIngressNginxLuaStubs(luaDir);
  cluster = syntheticCluster(INGRESSES, await wildcardCertificate());
  configuration = modelOf(cluster);
  conf = ingressNginxShapedConf(configuration, { context, luaDir, workerProcesses: 2 });
  tree = parseNginxConf(conf);
});

after(() => rm(luaDir, { recursive: true, force: true }));

/** The model's Configuration for the cluster, as bench/render.ts builds it. */
function modelOf(input: SyntheticCluster): Configuration {
  const store = new Store(STORE_SETTINGS);
  store.sink('IngressClass').replace(input.ingressClasses);
  store.sink('Service').replace(input.services);
  store.sink('EndpointSlice').replace(input.endpointSlices);
  store.sink('Secret').replace(input.secrets);
  store.sink('Ingress').replace(input.ingresses);
  const accepted = new IngressAcceptance(ANNOTATIONS_PREFIX).update(store.ingresses(), DEFAULT_SETTINGS);
  const defaults = parseIngressAnnotations(undefined, { prefix: ANNOTATIONS_PREFIX, settings: DEFAULT_SETTINGS });
  if (!defaults.ok) throw new Error(defaults.errors.join('; '));
  const result = buildConfiguration({
    ingresses: accepted.accepted,
    lookup: store,
    settings: DEFAULT_SETTINGS,
    defaultAnnotations: defaults.value.location,
    endpoints: { guard: { porticoPorts: [], interfaceAddresses: [], refuseLoopbackEverywhere: false }, externalNames: true },
  });
  assert.equal(accepted.refused.length, 0);
  return result.configuration;
}

const hostsOf = (input: SyntheticCluster): string[] =>
  input.ingresses.flatMap((ingress) => ingress.spec?.rules?.map((rule) => rule.host!) ?? []);

/** The value of the `set $<variable>` line directly in `block`. */
function setValue(block: ParsedDirective, variable: string): string | undefined {
  return argsOf(block, 'set').find(([name]) => name === `$${variable}`)?.[1];
}

test('nginx -t accepts the ingress-nginx-shaped file', { skip: missingNginx }, async () => {
  await nginxSyntaxCheck(conf, context);
});

test('one server per host, each with the HTTPS listener, the certificate hook and no certificate of its own', () => {
  const hosts = hostsOf(cluster);
  assert.ok(hosts.length > INGRESSES, 'some Ingresses have two hosts');
  const names = servers(tree).flatMap((server) => argsOf(server, 'server_name').map(([name]) => name));
  // The hosts, the catch-all, and ingress-nginx's two internal servers (no server_name).
  assert.deepEqual(names.sort(), [...hosts, '_'].sort());
  assert.equal(servers(tree).length, hosts.length + 3);
  for (const host of hosts) {
    const server = serverNamed(tree, host);
    assert.deepEqual(
      argsOf(server, 'listen').map((args) => args.join(' ')),
      [String(context.ports.http), `${context.ports.https} ssl http2`].map((listen) => `127.0.0.1:${listen}`),
    );
    assert.equal(only(server.children, 'ssl_certificate_by_lua_file').args[0], join(luaDir, INGRESS_NGINX_LUA.certificate));
    assert.deepEqual(named(server.children, 'ssl_certificate'), [], 'the fake certificate is inherited from the http block');
  }
  assert.equal(only(only(tree, 'http').children, 'ssl_certificate').args[0], context.paths.fakeCertificate);
  assert.equal(named(only(only(tree, 'http').children, 'upstream').children, 'balancer_by_lua_file').length, 1);
});

test("a plain host's locations as ingress-nginx writes them: longest path first, a Prefix path as two blocks", () => {
  // app-3: not in regex mode, with the Exact /healthz (i % 3 == 0) and the allowlist off (3 % 7 != 0).
  const server = serverNamed(tree, 'app-3.bench.example');
  const locations = named(server.children, 'location');
  assert.deepEqual(
    locations.map((location) => location.args),
    [['=', '/healthz'], ['/api/'], ['=', '/api'], ['/']],
  );
  const [healthz, apiPrefix, apiExact, root] = locations as [ParsedDirective, ParsedDirective, ParsedDirective, ParsedDirective];
  assert.equal(setValue(apiPrefix, 'location_path'), '/api');
  assert.equal(setValue(apiExact, 'location_path'), '/api');
  assert.equal(setValue(apiPrefix, 'proxy_upstream_name'), 'team-3-api-3-80');
  assert.equal(setValue(root, 'proxy_upstream_name'), 'team-3-web-3-http');
  assert.equal(setValue(healthz, 'service_port'), 'http');
  for (const location of locations) {
    assert.equal(setValue(location, 'namespace'), 'team-3');
    assert.equal(setValue(location, 'ingress_name'), 'app-3');
    assert.equal(only(location.children, 'rewrite_by_lua_file').args[0], join(luaDir, INGRESS_NGINX_LUA.rewrite));
    assert.equal(only(location.children, 'header_filter_by_lua_file').args[0], join(luaDir, INGRESS_NGINX_LUA.headerFilter));
    assert.equal(only(location.children, 'log_by_lua_file').args[0], join(luaDir, INGRESS_NGINX_LUA.log));
    assert.equal(argsOf(location, 'set').length, 18, "the template's set lines at the defaults");
    assert.equal(argsOf(location, 'proxy_set_header').length, 14);
    assert.deepEqual(only(location.children, 'proxy_pass').args, ['http://upstream_balancer']);
    assert.deepEqual(only(location.children, 'client_max_body_size').args, ['1m']);
    assert.deepEqual(named(location.children, 'allow'), []);
  }
});

test("the annotations' directives, and a regex-mode host's locations", () => {
  // app-28: proxy-body-size 8m and proxy-read-timeout 120 (28 % 4 == 0), allowlist (28 % 7 == 0).
  const annotated = named(serverNamed(tree, 'app-28.bench.example').children, 'location');
  assert.equal(annotated.length, 3);
  for (const location of annotated) {
    assert.deepEqual(only(location.children, 'client_max_body_size').args, ['8m']);
    assert.deepEqual(only(location.children, 'proxy_read_timeout').args, ['120s']);
    assert.deepEqual(argsOf(location, 'allow'), [['10.0.0.0/8'], ['192.168.0.0/16']]);
    assert.deepEqual(argsOf(location, 'deny'), [['all']]);
  }
  // app-5: regex mode, rewrite-target /$2: every location of the host is `~* "^path"`, each path with a capture rewrites.
  const regex = named(serverNamed(tree, 'app-5.bench.example').children, 'location');
  assert.deepEqual(
    regex.map((location) => location.args),
    [
      ['~*', '^/api(/|$)(.*)'],
      ['~*', '^/()(.*)'],
      ['~*', '^/'],
    ],
  );
  assert.deepEqual(only(regex[0]!.children, 'rewrite').args, ['(?i)/api(/|$)(.*)', '/$2', 'break']);
  assert.equal(setValue(regex[0]!, 'location_path'), '/api(/|${literal_dollar})(.*)');
  // The host's `/`, which no path of the Ingress names: ingress-nginx's default backend.
  assert.equal(setValue(regex[2]!, 'proxy_upstream_name'), 'upstream-default-backend');
});
