// Ingresses of one shape for admission tests, and the admission context of a
// controller whose last sync accepted a given set, wired as main.ts wires it.
import assert from 'node:assert/strict';
import { LiveAdmissionContext } from '../../src/admission/liveAdmissionContext.js';
import type { AdmissionContext } from '../../src/admission/reviewIngress.js';
import { IngressAcceptance } from '../../src/controller/ingressAcceptance.js';
import type { Ingress, IngressClass } from '../../src/kube/objects.js';
import { parseIngressAnnotations } from '../../src/model/annotations/parseIngressAnnotations.js';
import { DEFAULT_SETTINGS, type GlobalSettings } from '../../src/model/settings/globalSettings.js';
import { Store, type StoreSettings } from '../../src/store/store.js';
import { TEST_STORE_SETTINGS } from '../support/watchCluster.js';

export const PREFIX = 'nginx.ingress.kubernetes.io';
const nginxClass: IngressClass = { metadata: { name: 'nginx', resourceVersion: '1' }, spec: { controller: 'k8s.io/ingress-nginx' } };

let age = 0;
export function ingress(
  name: string,
  paths: [host: string | undefined, path: string, pathType: 'Exact' | 'Prefix' | 'ImplementationSpecific'][],
  annotations: Record<string, string> = {},
  extra: { namespace?: string; className?: string | null } = {},
): Ingress {
  age++;
  return {
    metadata: {
      name,
      namespace: extra.namespace ?? 'app',
      resourceVersion: String(age),
      creationTimestamp: new Date(Date.UTC(2026, 0, 1) + age * 1000).toISOString(),
      annotations: Object.fromEntries(Object.entries(annotations).map(([key, value]) => [`${PREFIX}/${key}`, value])),
    },
    spec: {
      ingressClassName: extra.className === null ? undefined : (extra.className ?? 'nginx'),
      rules: paths.map(([host, path, pathType]) => ({
        host,
        http: { paths: [{ path, pathType, backend: { service: { name: `svc-${name}`, port: { number: 80 } } } }] },
      })),
    },
  };
}

/** The context of a controller whose last sync accepted `existing`, as main.ts wires it. */
export function contextWith(
  existing: readonly Ingress[],
  {
    store: storeOverrides = {},
    settings = DEFAULT_SETTINGS,
    watchNamespace = '',
    disableFullTest = false,
    deepInspect = true,
  }: {
    store?: Partial<StoreSettings>;
    settings?: GlobalSettings;
    watchNamespace?: string;
    disableFullTest?: boolean;
    deepInspect?: boolean;
  } = {},
): AdmissionContext {
  const storeSettings = { ...TEST_STORE_SETTINGS, ...storeOverrides };
  const store = new Store(storeSettings);
  store.sink('IngressClass').upsert(nginxClass);
  for (const existingIngress of existing) store.sink('Ingress').upsert(existingIngress);
  const accepted = new IngressAcceptance(PREFIX).update(store.ingresses(), settings).accepted;
  const defaults = parseIngressAnnotations(undefined, { prefix: PREFIX, settings });
  assert.ok(defaults.ok);
  const input = {
    ingresses: accepted,
    lookup: store,
    settings,
    defaultAnnotations: defaults.value.location,
    endpoints: { guard: { porticoPorts: [], interfaceAddresses: [], refuseLoopbackEverywhere: false }, externalNames: true },
  };
  const context = new LiveAdmissionContext({
    store,
    storeSettings,
    watchNamespace,
    disableFullTest,
    deepInspect,
    lastInput: () => input,
  }).current();
  assert.ok(context);
  return context;
}
