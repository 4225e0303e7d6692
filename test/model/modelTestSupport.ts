// Builders for the model's tests: Ingresses created one second apart (so the
// order of creation is the order of age), the objects they name, and
// buildConfiguration with the ConfigMap defaults.
import assert from 'node:assert/strict';
import type { ConfigMap, EndpointSlice, Ingress, Secret, Service } from '../../src/kube/objects.js';
import { parseIngressAnnotations } from '../../src/model/annotations/parseIngressAnnotations.js';
import { buildConfiguration, type AcceptedIngress, type ModelInput } from '../../src/model/buildConfiguration.js';
import type { ModelMemo } from '../../src/model/memo/modelMemo.js';
import { DEFAULT_SETTINGS } from '../../src/model/settings/globalSettings.js';
import type { IngressAnnotations, LocationAnnotations } from '../../src/model/types.js';

const PREFIX = 'nginx.ingress.kubernetes.io';

const noAnnotations = parseIngressAnnotations(undefined, { prefix: PREFIX, settings: DEFAULT_SETTINGS });
assert.ok(noAnnotations.ok);
/** What an Ingress without annotations gets. */
export const DEFAULT_ANNOTATIONS: IngressAnnotations = noAnnotations.value;

type PathSpec = [path: string, type: 'Exact' | 'Prefix' | 'ImplementationSpecific', service: string];

let clock = 0;

/** An Ingress in namespace `app`, newer than every one built before; services on port 80. */
export function ingress(
  name: string,
  host: string | undefined,
  paths: PathSpec[],
  extra: Partial<NonNullable<Ingress['spec']>> = {},
): Ingress {
  clock++;
  return {
    metadata: { name, namespace: 'app', creationTimestamp: new Date(Date.UTC(2026, 0, 1) + clock * 1000).toISOString() },
    spec: {
      ...extra,
      rules: paths.length
        ? [
            {
              host,
              http: {
                paths: paths.map(([path, pathType, service]) => ({
                  path,
                  pathType,
                  backend: { service: { name: service, port: { number: 80 } } },
                })),
              },
            },
          ]
        : extra.rules,
    },
  };
}

/** Accepted with default annotations, except the rewrite settings given. */
export function accepted(ing: Ingress, rewrite: Partial<LocationAnnotations['rewrite']> = {}): AcceptedIngress {
  const location = DEFAULT_ANNOTATIONS.location;
  return { ingress: ing, annotations: { ...DEFAULT_ANNOTATIONS, location: { ...location, rewrite: { ...location.rewrite, ...rewrite } } } };
}

/** Accepted with these annotations (names without the prefix), parsed as the controller does. */
export function annotated(ing: Ingress, annotations: Record<string, string>): AcceptedIngress {
  const prefixed = Object.fromEntries(Object.entries(annotations).map(([name, value]) => [`${PREFIX}/${name}`, value]));
  const parsed = parseIngressAnnotations(prefixed, { prefix: PREFIX, settings: DEFAULT_SETTINGS });
  assert.ok(parsed.ok, JSON.stringify(parsed));
  return { ingress: ing, annotations: parsed.value };
}

export function service(name: string, ports: { name?: string; port: number }[], type?: string, externalName?: string): Service {
  return { metadata: { name, namespace: 'app' }, spec: { ports, type, externalName } };
}

export function slice(
  serviceName: string,
  endpoints: [address: string, ready?: boolean][],
  ports: { name?: string; port: number }[],
): EndpointSlice {
  return {
    metadata: { name: `${serviceName}-x`, namespace: 'app', labels: { 'kubernetes.io/service-name': serviceName } },
    addressType: 'IPv4',
    endpoints: endpoints.map(([address, ready]) => ({ addresses: [address], conditions: ready === undefined ? {} : { ready } })),
    ports,
  };
}

export function world(
  services: Service[] = [],
  slices: EndpointSlice[] = [],
  secrets: Secret[] = [],
  configMaps: ConfigMap[] = [],
): ModelInput['lookup'] {
  return {
    service: (key) => services.find((s) => `${s.metadata?.namespace}/${s.metadata?.name}` === key),
    endpointSlicesOfService: (key) =>
      slices.filter((s) => `${s.metadata?.namespace}/${s.metadata?.labels?.['kubernetes.io/service-name']}` === key),
    secret: (key) => secrets.find((s) => `${s.metadata?.namespace}/${s.metadata?.name}` === key),
    configMap: (key) => configMaps.find((c) => `${c.metadata?.namespace}/${c.metadata?.name}` === key),
  };
}

/** No Portico ports nor addresses: the model's tests use any endpoint. */
export const ALLOW_ALL_ENDPOINTS: ModelInput['endpoints'] = {
  guard: { porticoPorts: [], interfaceAddresses: [], refuseLoopbackEverywhere: false },
  externalNames: true,
};

/** `memo`: the memo of earlier runs (memo/modelMemo.ts). */
export function build(ingresses: AcceptedIngress[], lookup = world(), extra: Partial<ModelInput> = {}, memo?: ModelMemo) {
  return buildConfiguration(
    {
      ingresses,
      lookup,
      settings: DEFAULT_SETTINGS,
      defaultAnnotations: DEFAULT_ANNOTATIONS.location,
      endpoints: ALLOW_ALL_ENDPOINTS,
      ...extra,
    },
    memo,
  );
}

export const locationsOf = (result: ReturnType<typeof build>, host: string) =>
  result.configuration.servers.find((s) => s.hostname === host)?.locations.map((l) => `${l.match} ${l.path} -> ${l.backend ?? '404'}`);

/** `<ingress name> <reason>` of each problem, in order. */
export const problemsOf = (result: ReturnType<typeof build>) => result.problems.map((p) => `${p.ingress.name} ${p.reason}`);

export const backendOf = (result: ReturnType<typeof build>, name: string) => result.configuration.backends.find((b) => b.name === name);
