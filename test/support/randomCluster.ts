// A small cluster changed at random, seeded (the same run every time): Ingresses
// added, edited and deleted with random hosts, paths, annotations and TLS,
// Services and their endpoints, TLS Secrets, the ConfigMap's settings and the
// default backend. The render cache's test and the model memo's test compare
// their incremental results with results from scratch after each change.
import { availableParallelism } from 'node:os';
import type { IngressAcceptance } from '../../src/controller/ingressAcceptance.js';
import type { EndpointSlice, Ingress, Secret, Service } from '../../src/kube/objects.js';
import { defaultLocationAnnotations } from '../../src/model/annotations/parseIngressAnnotations.js';
import type { ModelInput } from '../../src/model/buildConfiguration.js';
import type { GlobalSettings } from '../../src/model/settings/globalSettings.js';
import { parseGlobalSettings } from '../../src/model/settings/parseGlobalSettings.js';
import type { LocationAnnotations } from '../../src/model/types.js';
import { SERVICE_NAME_LABEL, Store } from '../../src/store/store.js';
import type { TestCertificate } from './tlsSecrets.js';
import { TEST_STORE_SETTINGS } from './watchCluster.js';

const NAMESPACE = 'app';
/** No Portico ports nor addresses: every endpoint is a backend's. */
const ANY_ENDPOINT: ModelInput['endpoints'] = {
  guard: { porticoPorts: [], interfaceAddresses: [], refuseLoopbackEverywhere: false },
  externalNames: true,
};
export const PREFIX = TEST_STORE_SETTINGS.annotationsPrefix;
const HOSTS = ['a.test.example', 'b.test.example', 'c.test.example', 'www.d.test.example', 'd.test.example', 'other.example'];
const SERVICES = ['svc-0', 'svc-1', 'svc-2', 'svc-3'];
const SECRETS = ['tls-0', 'tls-1'];
const PATHS = ['/', '/api', '/static', '/v1/.+', '/exact'];
/** Annotations one Ingress may carry (names without the prefix): each shapes some part of its servers' text. */
export const ANNOTATIONS: ReadonlyArray<Record<string, string>> = [
  {},
  { 'rewrite-target': '/' },
  { 'ssl-redirect': 'false' },
  { 'load-balance': 'ewma' },
  { 'enable-cors': 'true', 'cors-allow-origin': 'https://x.example' },
  { 'custom-http-errors': '503', 'default-backend': 'svc-1' },
  { canary: 'true', 'canary-weight': '20' },
  { affinity: 'cookie' },
  { 'from-to-www-redirect': 'true' },
  { 'server-alias': 'alias.test.example' },
  { 'limit-rps': '5' },
  { 'use-regex': 'true' },
  { 'proxy-read-timeout': '30' },
  { 'whitelist-source-range': '10.0.0.0/8' },
  { 'permanent-redirect': 'https://moved.example' },
  { 'backend-protocol': 'GRPC' },
];
/** ConfigMap data the settings take, one at a time. */
const SETTINGS: ReadonlyArray<Record<string, string>> = [
  {},
  { hsts: 'false' },
  { 'ssl-redirect': 'false' },
  { 'load-balance': 'ewma' },
  { 'custom-http-errors': '404,503' },
  { 'proxy-body-size': '8m' },
  { 'use-http2': 'false' },
  { 'enable-brotli': 'true' },
];

/** mulberry32: a seeded run is the same run every time. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * `hosts`, `services`: that many names to pick from instead of the few shared ones (most Ingresses then share
 * nothing); the first ten hosts have a www twin among them (`h0.test.example`, `www.h0.test.example`).
 */
export interface RandomClusterSpread {
  hosts: number;
  services: number;
}

export class RandomCluster {
  readonly store = new Store(TEST_STORE_SETTINGS);
  readonly #hosts: readonly string[];
  readonly #services: readonly string[];
  settingsData: Record<string, string> = {};
  #parsed: { data: Record<string, string>; settings: GlobalSettings; defaults: LocationAnnotations } | undefined;
  defaultBackendService: string | undefined;
  readonly #next: () => number;
  readonly #certificates: readonly TestCertificate[];
  #version = 0;
  #created = 0;
  readonly #ingresses = new Map<string, Ingress>();

  /** `annotations`: the sets of annotations an Ingress takes one or two of (default ANNOTATIONS). */
  constructor(
    seed: number,
    certificates: readonly TestCertificate[],
    private readonly annotations: ReadonlyArray<Record<string, string>> = ANNOTATIONS,
    spread?: RandomClusterSpread,
  ) {
    this.#hosts =
      spread === undefined
        ? HOSTS
        : Array.from({ length: spread.hosts }, (_, i) => (i < 20 && i % 2 === 1 ? `www.h${i - 1}` : `h${i}`) + '.test.example');
    this.#services = spread === undefined ? SERVICES : Array.from({ length: spread.services }, (_, i) => `svc-${i}`);
    this.#next = random(seed);
    this.#certificates = certificates;
    this.store.sink('IngressClass').replace([
      {
        metadata: { name: TEST_STORE_SETTINGS.ingressClass, resourceVersion: '1' },
        spec: { controller: TEST_STORE_SETTINGS.controllerClass },
      },
    ]);
    for (const name of this.#services) {
      this.#putService(name, 80);
      this.#putEndpoints(name, 2);
    }
    for (const name of SECRETS) this.#putSecret(name);
    for (let i = 0; i < 8; i++) this.#putIngress(`ing-${i}`);
  }

  /**
   * The model's input from the cluster as it is now, as the sync loop builds it: the settings and the default
   * annotations parsed again only when the ConfigMap's data changed (the acceptance validates every Ingress again for
   * new settings, and the model's memo misses on new defaults); `acceptance` keeps the versions it accepted.
   */
  modelInput(acceptance: IngressAcceptance): ModelInput {
    if (this.#parsed?.data !== this.settingsData) {
      const { settings } = parseGlobalSettings(this.settingsData, { cpus: availableParallelism() });
      this.#parsed = { data: this.settingsData, settings, defaults: defaultLocationAnnotations(settings) };
    }
    const { settings, defaults } = this.#parsed;
    return {
      ingresses: acceptance.update(this.store.ingresses(), settings).accepted,
      lookup: this.store,
      settings,
      defaultAnnotations: defaults,
      defaultBackendService: this.defaultBackendService,
      endpoints: ANY_ENDPOINT,
    };
  }

  /** One random change; returns what it was, for the assertion's message. */
  change(): string {
    const pick = this.#next();
    const ingresses = [...this.#ingresses.keys()];
    if (pick < 0.2 || ingresses.length === 0) return this.#putIngress(`ing-${this.#created}`);
    if (pick < 0.45) return this.#putIngress(this.#one(ingresses), 'edit');
    if (pick < 0.55) {
      const name = this.#one(ingresses);
      this.store.sink('Ingress').remove(this.#ingresses.get(name)!);
      this.#ingresses.delete(name);
      return `delete Ingress ${name}`;
    }
    if (pick < 0.7) return this.#putEndpoints(this.#one(this.#services), this.#integer(4));
    if (pick < 0.78) {
      const name = this.#one(this.#services);
      if (this.#next() < 0.3) {
        this.store.sink('Service').remove(this.#service(name, 80));
        return `delete Service ${name}`;
      }
      return this.#putService(name, this.#next() < 0.5 ? 80 : 8080);
    }
    if (pick < 0.86) return this.#putSecret(this.#one(SECRETS));
    if (pick < 0.95) {
      this.settingsData = { ...this.#one(SETTINGS), ...this.#one(SETTINGS) };
      return `settings ${JSON.stringify(this.settingsData)}`;
    }
    this.defaultBackendService = this.defaultBackendService === undefined ? `${NAMESPACE}/${this.#one(this.#services)}` : undefined;
    return `default backend ${this.defaultBackendService ?? 'none'}`;
  }

  #putIngress(name: string, verb = 'add'): string {
    const created =
      this.#ingresses.get(name)?.metadata?.creationTimestamp ?? new Date(Date.UTC(2026, 0, 1, 0, 0, this.#created++)).toISOString();
    const hosts = this.#next() < 0.1 ? [undefined] : [this.#one(this.#hosts), ...(this.#next() < 0.3 ? [this.#one(this.#hosts)] : [])];
    const annotations = { ...this.#one(this.annotations), ...(this.#next() < 0.3 ? this.#one(this.annotations) : {}) };
    const ingress: Ingress = {
      metadata: {
        name,
        namespace: NAMESPACE,
        resourceVersion: String(++this.#version),
        creationTimestamp: created,
        annotations: Object.fromEntries(Object.entries(annotations).map(([key, value]) => [`${PREFIX}/${key}`, value])),
      },
      spec: {
        ingressClassName: TEST_STORE_SETTINGS.ingressClass,
        ...(this.#next() < 0.15 ? { defaultBackend: { service: { name: this.#one(this.#services), port: { number: 80 } } } } : {}),
        ...(this.#next() < 0.4 ? { tls: [this.#tls(hosts)] } : {}),
        // A rule without paths still makes its host a server (and may give it the certificate).
        rules: hosts.map((host) => ({
          host,
          http:
            this.#next() < 0.1
              ? undefined
              : {
                  paths: Array.from({ length: 1 + this.#integer(3) }, () => ({
                    path: this.#one(PATHS),
                    pathType: this.#one(['Prefix', 'Exact', 'ImplementationSpecific'] as const),
                    backend: { service: { name: this.#one(this.#services), port: { number: this.#next() < 0.9 ? 80 : 8080 } } },
                  })),
                },
        })),
      },
    };
    this.#ingresses.set(name, ingress);
    this.store.sink('Ingress').upsert(ingress);
    return `${verb} Ingress ${name} ${JSON.stringify(ingress.spec)} ${JSON.stringify(annotations)}`;
  }

  /** A spec.tls entry for the hosts; without hosts, the model picks the Secret when its certificate covers the host. */
  #tls(hosts: readonly (string | undefined)[]): { hosts?: string[]; secretName: string } {
    const secretName = this.#one(SECRETS);
    return this.#next() < 0.25 ? { secretName } : { hosts: hosts.filter((host) => host !== undefined), secretName };
  }

  #service(name: string, port: number): Service {
    return {
      metadata: { name, namespace: NAMESPACE, resourceVersion: String(++this.#version) },
      spec: { ports: [{ name: 'http', port }] },
    };
  }

  #putService(name: string, port: number): string {
    this.store.sink('Service').upsert(this.#service(name, port));
    return `Service ${name} on port ${port}`;
  }

  #putEndpoints(service: string, count: number): string {
    const slice: EndpointSlice = {
      metadata: {
        name: `${service}-x`,
        namespace: NAMESPACE,
        labels: { [SERVICE_NAME_LABEL]: service },
        resourceVersion: String(++this.#version),
      },
      addressType: 'IPv4',
      endpoints: Array.from({ length: count }, () => ({ addresses: [`10.0.0.${1 + this.#integer(200)}`], conditions: { ready: true } })),
      ports: [{ name: 'http', port: 8080 }],
    };
    this.store.sink('EndpointSlice').upsert(slice);
    return `${count} endpoints for ${service}`;
  }

  #putSecret(name: string): string {
    const certificate = this.#one(this.#certificates);
    const secret: Secret = {
      metadata: { name, namespace: NAMESPACE, resourceVersion: String(++this.#version) },
      type: 'kubernetes.io/tls',
      data: {
        'tls.crt': Buffer.from(certificate.certificatePem).toString('base64'),
        'tls.key': Buffer.from(certificate.keyPem).toString('base64'),
      },
    };
    this.store.sink('Secret').upsert(secret);
    return `Secret ${name} holds ${certificate.certificatePem.length}`;
  }

  #one<T>(values: readonly T[]): T {
    return values[this.#integer(values.length)] as T;
  }

  #integer(below: number): number {
    return Math.floor(this.#next() * below);
  }
}
