// --deep-inspect: every pattern of ingress-nginx's inspector (its rules_test.go
// cases among them) refuses the Ingress in the sync loop's check and at
// admission, in a host, a path, a TLS Secret name or a TLS host; ordinary
// values pass; --deep-inspect=false serves them as ingress-nginx does.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { reviewIngress } from '../../src/admission/reviewIngress.js';
import { judgeIngressVersion } from '../../src/controller/ingressAcceptance.js';
import type { Ingress } from '../../src/kube/objects.js';
import type { ModSecurityInstallation } from '../../src/model/annotations/modSecurityAnnotations.js';
import { deepInspectionErrors, looksDangerous } from '../../src/model/deepInspection.js';
import { DEFAULT_SETTINGS } from '../../src/model/settings/globalSettings.js';
import { contextWith, ingress, PREFIX } from '../admission/admissionTestSupport.js';

const NO_MODSECURITY: ModSecurityInstallation = { module: false, coreRuleSet: false };

// ImplementationSpecific paths, so that only deep inspection (not strict-validate-path-type) can refuse them.
const DANGEROUS = [
  '/   root    blabla/lala ;',
  '/   alias    blabla/lala ;',
  '/alias #\n/lalala/1/;',
  '/location /etc/nginx/lalala',
  '/etc/passwd',
  '/x/etc/shadow',
  '/etc/group',
  '/etc/ingress-controller/ssl',
  '/ssl_cert /var/run/secrets/kubernetes.io/lalala; xpto',
  '/set_by_lua lala',
  '/content_by_lua_block',
  '/chroot;',
];
const ORDINARY = ['/test/mypage1', '/', '/api/(.*)', '/etc/hosts', '/var/run/other', '/aliases', '/roots/', '/by_lua', '/ETC/NGINX'];

describe('the patterns', () => {
  it('match what ingress-nginx refuses and nothing ordinary', () => {
    for (const value of DANGEROUS) assert.ok(looksDangerous(value), JSON.stringify(value));
    for (const value of ORDINARY) assert.ok(!looksDangerous(value), JSON.stringify(value));
  });

  it('are looked for in hosts, paths, TLS Secret names and TLS hosts', () => {
    const candidate: Ingress = {
      metadata: { name: 'x', namespace: 'app' },
      spec: {
        tls: [{ secretName: 'cert_by_lua', hosts: ['a.example', 'root.example;'] }],
        rules: [{ host: 'alias.example;', http: { paths: [{ path: '/etc/nginx', pathType: 'Prefix', backend: {} }] } }],
      },
    };
    const errors = deepInspectionErrors(candidate);
    assert.equal(errors.length, 4, errors.join('\n'));
    assert.match(errors[0] ?? '', /^host "alias\.example;"/);
    assert.match(errors[1] ?? '', /^path of host alias\.example; "\/etc\/nginx"/);
    assert.match(errors[2] ?? '', /^tls secretName "cert_by_lua"/);
    assert.match(errors[3] ?? '', /^tls host "root\.example;"/);
  });
});

describe('the sync loop refuses, and --deep-inspect=false serves', () => {
  for (const path of DANGEROUS) {
    it(JSON.stringify(path), () => {
      const candidate = ingress('dangerous', [['a.example', path, 'ImplementationSpecific']]);
      const refused = judgeIngressVersion(candidate, PREFIX, DEFAULT_SETTINGS, NO_MODSECURITY);
      assert.equal(refused.ok, false);
      assert.ok(!refused.ok && refused.errors.some((error) => /deep inspection refuses \(--deep-inspect\)/.test(error)));
      // A line break is a control character, which Portico refuses in any path.
      const served = judgeIngressVersion(candidate, PREFIX, DEFAULT_SETTINGS, NO_MODSECURITY, false);
      assert.equal(served.ok, !path.includes('\n'));
    });
  }

  it('a Prefix path /etc/nginx, which strict-validate-path-type allows', () => {
    const candidate = ingress('etc', [['a.example', '/etc/nginx', 'Prefix']]);
    assert.equal(judgeIngressVersion(candidate, PREFIX, DEFAULT_SETTINGS, NO_MODSECURITY).ok, false);
    assert.equal(judgeIngressVersion(candidate, PREFIX, DEFAULT_SETTINGS, NO_MODSECURITY, false).ok, true);
  });
});

describe('admission', () => {
  it('denies, even an Ingress of another class, as ingress-nginx inspects before the class check', () => {
    const context = contextWith([]);
    for (const className of ['nginx', 'other']) {
      const verdict = reviewIngress(ingress('dangerous', [['a.example', '/var/run/secrets', 'Prefix']], {}, { className }), context);
      assert.equal(verdict.allowed, false, className);
      assert.match(verdict.message ?? '', /path of host a\.example "\/var\/run\/secrets" contains a pattern/);
    }
    assert.equal(reviewIngress(ingress('fine', [['a.example', '/var/run/other', 'Prefix']]), context).allowed, true);
  });

  it('allows them under --deep-inspect=false', () => {
    const verdict = reviewIngress(
      ingress('dangerous', [['a.example', '/var/run/secrets', 'Prefix']]),
      contextWith([], { deepInspect: false }),
    );
    assert.equal(verdict.allowed, true, verdict.message);
  });
});
