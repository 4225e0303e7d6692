import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Ingress, Secret } from '../../src/kube/objects.js';
import type { ModelInput } from '../../src/model/buildConfiguration.js';
import { annotated, build, ingress, world } from './modelTestSupport.js';

const serverOf = (result: ReturnType<typeof build>, host: string) => result.configuration.servers.find((s) => s.hostname === host);
const problemsOf = (result: ReturnType<typeof build>) => result.problems.map((p) => `${p.ingress.name} ${p.severity} ${p.reason}`);

function withTls(ing: Ingress, secretName: string): Ingress {
  return { ...ing, spec: { ...ing.spec, tls: [{ hosts: [ing.spec?.rules?.[0]?.host ?? ''], secretName }] } };
}

function tlsSecret(name: string, hosts: string[]): Secret {
  const dir = mkdtempSync(join(tmpdir(), 'portico-alias-cert-'));
  const [key, crt] = [join(dir, 'k.pem'), join(dir, 'c.pem')];
  const san = `subjectAltName=${hosts.map((h) => `DNS:${h}`).join(',')}`;
  const args = ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2'];
  execFileSync('openssl', [...args, '-keyout', key, '-out', crt, '-subj', `/CN=${hosts[0]}`, '-addext', san], { stdio: 'ignore' });
  const data = { 'tls.crt': readFileSync(crt).toString('base64'), 'tls.key': readFileSync(key).toString('base64') };
  rmSync(dir, { recursive: true, force: true });
  return { metadata: { name, namespace: 'app' }, type: 'kubernetes.io/tls', data };
}

test('server-alias names are added to the hosts of the Ingress, with the certificate when it covers them', () => {
  const secret = tlsSecret('web-tls', ['web.example', 'alias.example']);
  const web = annotated(withTls(ingress('web', 'web.example', [['/', 'Prefix', 'web']]), 'web-tls'), {
    'server-alias': 'alias.example,other.example',
  });
  const result = build([web], world([], [], [secret]));
  const server = serverOf(result, 'web.example');
  assert.ok(server?.certificate !== undefined);
  assert.deepEqual(server.aliases, [
    { hostname: 'alias.example', certificate: server.certificate },
    { hostname: 'other.example', certificate: undefined },
  ]);
  assert.deepEqual(problemsOf(result), []);
  // A server without aliases has no field at all (it compares equal to one from before this feature).
  assert.equal(
    'aliases' in (serverOf(build([annotated(ingress('b', 'b.example', [['/', 'Prefix', 'b']]), {})]), 'b.example') ?? {}),
    false,
  );
});

test("an alias that is another Ingress's host is not added (Warning), and that host keeps serving it", () => {
  const other = annotated(ingress('other', 'taken.example', [['/', 'Prefix', 'other']]), {});
  const web = annotated(ingress('web', 'web.example', [['/', 'Prefix', 'web']]), { 'server-alias': 'taken.example,free.example' });
  for (const order of [
    [other, web],
    [web, other],
  ]) {
    const result = build(order);
    assert.deepEqual(
      serverOf(result, 'web.example')?.aliases?.map((a) => a.hostname),
      ['free.example'],
    );
    assert.equal(serverOf(result, 'taken.example')?.locations.at(-1)?.backend, 'app/other:80');
    assert.deepEqual(problemsOf(result), ['web warning ServerAliasConflict']);
    assert.match(result.problems[0]?.message ?? '', /taken\.example not added to host web\.example: it is the host of an Ingress/);
  }
});

test('an alias two hosts ask for goes to the older Ingress; the younger is warned', () => {
  const older = annotated(ingress('older', 'a.example', [['/', 'Prefix', 'a']]), { 'server-alias': 'shared.example' });
  const younger = annotated(ingress('younger', 'b.example', [['/', 'Prefix', 'b']]), { 'server-alias': 'shared.example,b2.example' });
  const result = build([younger, older]);
  assert.deepEqual(
    serverOf(result, 'a.example')?.aliases?.map((a) => a.hostname),
    ['shared.example'],
  );
  assert.deepEqual(
    serverOf(result, 'b.example')?.aliases?.map((a) => a.hostname),
    ['b2.example'],
  );
  assert.deepEqual(problemsOf(result), ['younger warning ServerAliasConflict']);
});

test("a host's aliases come from its oldest Ingress with server-alias; a younger one's are ignored (info)", () => {
  const plain = annotated(ingress('plain', 'h.example', [['/a', 'Prefix', 'a']]), {});
  const first = annotated(ingress('first', 'h.example', [['/b', 'Prefix', 'b']]), { 'server-alias': 'one.example' });
  const second = annotated(ingress('second', 'h.example', [['/c', 'Prefix', 'c']]), { 'server-alias': 'two.example' });
  const result = build([second, first, plain]);
  assert.deepEqual(
    serverOf(result, 'h.example')?.aliases?.map((a) => a.hostname),
    ['one.example'],
  );
  assert.deepEqual(problemsOf(result), ['second info ServerAliasIgnored']);
});

test('from-to-www-redirect: the www twin of a host, the bare name of a www host, with the certificate when it covers it', () => {
  const secret = tlsSecret('tls', ['bare.example', 'www.bare.example']);
  const bare = annotated(withTls(ingress('bare', 'bare.example', [['/', 'Prefix', 'web']]), 'tls'), { 'from-to-www-redirect': 'true' });
  const www = annotated(ingress('www', 'www.other.example', [['/', 'Prefix', 'web']]), { 'from-to-www-redirect': 'true' });
  const result = build([bare, www], world([], [], [secret]));
  const bareServer = serverOf(result, 'bare.example');
  assert.ok(bareServer?.certificate !== undefined);
  assert.deepEqual(bareServer.wwwRedirect, { hostname: 'www.bare.example', certificate: bareServer.certificate });
  assert.deepEqual(serverOf(result, 'www.other.example')?.wwwRedirect, { hostname: 'other.example', certificate: undefined });
  assert.equal(serverOf(result, 'www.bare.example'), undefined);
  assert.deepEqual(problemsOf(result), []);
});

test('from-to-www-redirect is left out (Warning) when the other name is an Ingress host or an alias', () => {
  const bare = annotated(ingress('bare', 'bare.example', [['/', 'Prefix', 'web']]), { 'from-to-www-redirect': 'true' });
  const www = annotated(ingress('www', 'www.bare.example', [['/', 'Prefix', 'www']]), {});
  const hosts = build([bare, www]);
  assert.equal(serverOf(hosts, 'bare.example')?.wwwRedirect, undefined);
  assert.equal(serverOf(hosts, 'www.bare.example')?.locations.at(-1)?.backend, 'app/www:80');
  assert.deepEqual(problemsOf(hosts), ['bare warning WwwRedirectConflict']);

  const aliasing = annotated(ingress('aliasing', 'z.example', [['/', 'Prefix', 'z']]), { 'server-alias': 'www.bare.example' });
  const aliased = build([bare, aliasing]);
  assert.equal(serverOf(aliased, 'bare.example')?.wwwRedirect, undefined);
  assert.deepEqual(
    serverOf(aliased, 'z.example')?.aliases?.map((a) => a.hostname),
    ['www.bare.example'],
  );
  assert.deepEqual(problemsOf(aliased), ['bare warning WwwRedirectConflict']);
});

test('a mirror-target at a loopback address, or at Portico itself, is refused with a Warning; others are kept', () => {
  const endpoints: ModelInput['endpoints'] = {
    guard: { porticoPorts: [80, 443], interfaceAddresses: ['192.0.2.7'], refuseLoopbackEverywhere: false },
    externalNames: true,
  };
  const mirrorOf = (target: string) => {
    const result = build([annotated(ingress('m', 'm.example', [['/', 'Prefix', 'web']]), { 'mirror-target': target })], world(), {
      endpoints,
    });
    return { mirror: serverOf(result, 'm.example')?.locations.at(-1)?.annotations.mirror, problems: problemsOf(result) };
  };
  for (const target of ['http://127.0.0.1:9000/m', 'http://[::1]/m', 'http://0.0.0.0:8080/m', 'http://192.0.2.7/m', 'https://192.0.2.7']) {
    const { mirror, problems } = mirrorOf(target);
    assert.equal(mirror, undefined, target);
    assert.deepEqual(problems, ['m warning MirrorTargetRefused'], target);
  }
  for (const target of ['http://192.0.2.7:8080/m', 'http://10.1.2.3/m$request_uri']) {
    const { mirror, problems } = mirrorOf(target);
    assert.ok(mirror !== undefined, target);
    assert.deepEqual(problems, [], target);
  }
});
