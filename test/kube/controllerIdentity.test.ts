import { test } from 'node:test';
import assert from 'node:assert/strict';
import { controllerIdentity } from '../../src/kube/controllerIdentity.js';

test("the Lease namespace is POD_NAMESPACE, else the kubeconfig context's, else default, and says which", () => {
  const pick = (env: NodeJS.ProcessEnv, context: string | undefined) => {
    const { namespace, namespaceFrom } = controllerIdentity(env, context);
    return { namespace, namespaceFrom };
  };
  assert.deepEqual(pick({ POD_NAMESPACE: 'ingress' }, 'dev'), { namespace: 'ingress', namespaceFrom: 'POD_NAMESPACE' });
  assert.deepEqual(pick({}, 'dev'), { namespace: 'dev', namespaceFrom: "the kubeconfig context's namespace" });
  assert.deepEqual(pick({ POD_NAMESPACE: '' }, ''), { namespace: 'default', namespaceFrom: 'no setting: the default' });
});
