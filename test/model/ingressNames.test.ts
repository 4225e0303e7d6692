import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ingressNameErrors } from '../../src/model/ingressNames.js';
import { judgeIngressVersion } from '../../src/controller/ingressAcceptance.js';
import { DEFAULT_SETTINGS } from '../../src/model/settings/globalSettings.js';
import type { Ingress } from '../../src/kube/objects.js';
import { HOSTILE_STRINGS } from '../dataplane/nginx/render/hostileValues.js';

interface Names {
  namespace?: string;
  name?: string;
  service?: string;
  port?: string;
  defaultService?: string;
}

function ingress(names: Names): Ingress {
  const port = names.port === undefined ? { number: 80 } : { name: names.port };
  return {
    metadata: { name: names.name ?? 'web', namespace: names.namespace ?? 'app' },
    spec: {
      defaultBackend: { service: { name: names.defaultService ?? 'fallback', port: { number: 80 } } },
      rules: [
        { host: 'h', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: names.service ?? 's', port } } }] } },
      ],
    },
  };
}

test('Kubernetes names pass: DNS labels and subdomains, port names and numbers', () => {
  assert.deepEqual(ingressNameErrors(ingress({})), []);
  assert.deepEqual(ingressNameErrors(ingress({ namespace: 'team-0', name: 'app.v2', service: 'web-0', port: 'http' })), []);
  assert.deepEqual(ingressNameErrors(ingress({ namespace: '0', name: 'a', service: 'b1', port: 'grpc-web' })), []);
});

test('a name nginx.conf could not join into $portico_location, or that the API server refuses, is refused with its field', () => {
  const cases: Array<[keyof Names, RegExp]> = [
    ['namespace', /^namespace /],
    ['name', /^name /],
    ['service', /^backend service "/],
    ['port', /^backend service port /],
    ['defaultService', /^backend service "/],
  ];
  for (const bad of ['a b', ' a', 'a ', 'A', 'a_b', '-a', 'a-', '', 'a\tb', ...HOSTILE_STRINGS]) {
    for (const [field, message] of cases) {
      const errors = ingressNameErrors(ingress({ [field]: bad }));
      assert.equal(errors.length, 1, `${field} ${JSON.stringify(bad)}: ${errors.join('; ')}`);
      assert.match(errors[0] ?? '', message);
    }
  }
});

test('the acceptance refuses such an Ingress (with the reason), and only it', () => {
  const verdict = judgeIngressVersion(ingress({ service: 'my service' }), 'nginx.ingress.kubernetes.io', DEFAULT_SETTINGS);
  assert.equal(verdict.ok, false);
  assert.match(verdict.ok ? '' : verdict.errors.join(), /backend service "my service" is not a Kubernetes name/);
  assert.equal(judgeIngressVersion(ingress({}), 'nginx.ingress.kubernetes.io', DEFAULT_SETTINGS).ok, true);
});
