// Typed caches of every watched kind, the indexes the model needs, the
// IngressClass and namespace filters, and one change feed. Sources write
// through `sink(kind)`; the model reads the Store (JavaScript is single
// threaded, so a synchronous read is a consistent snapshot).
import {
  objectKey,
  type ConfigMap,
  type EndpointSlice,
  type Ingress,
  type IngressClass,
  type Kind,
  type KindTypes,
  type KubeObject,
  type Namespace,
  type Secret,
  type Service,
} from '../kube/objects.js';
import { ChangeFeed } from './changeFeed.js';
import {
  decideIngressClass,
  isCatchAllIngress,
  isOwnIngressClass,
  type ClassDecision,
  type IngressClassSettings,
} from './ingressClassFilter.js';
import { configMapsOfIngress, secretsOfIngress, servicesOfIngress } from './ingressReferences.js';
import { ObjectCache } from './objectCache.js';
import type { ObjectSink } from './objectSink.js';
import { ReferenceIndex } from './referenceIndex.js';
import { secretsOfSettings } from './settingsReferences.js';
import { isStreamService } from './streamServiceReferences.js';

export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

export interface StoreSettings extends IngressClassSettings {
  annotationsPrefix: string;
  /** `--disable-catch-all`: Ingresses with only a default backend are ignored. */
  disableCatchAll: boolean;
  /** With `--watch-namespace-selector`, only objects in namespaces present in the Namespace cache count. */
  namespaceSelectorActive: boolean;
  /** `namespace/name` keys of ConfigMaps that configure the controller (--configmap, tcp, udp). */
  configMaps: readonly string[];
  /** `--default-ssl-certificate`. */
  defaultSslCertificate?: string;
  /** `--default-backend-service`. */
  defaultBackendService?: string;
}

/** The read side of the store, as the model sees it. */
export interface StoreSnapshot {
  /** Ingresses this controller serves, in no particular order. */
  ingresses(): Ingress[];
  ingress(key: string): Ingress | undefined;
  ingressClasses(): IngressClass[];
  service(key: string): Service | undefined;
  endpointSlicesOfService(serviceKey: string): EndpointSlice[];
  secret(key: string): Secret | undefined;
  configMap(key: string): ConfigMap | undefined;
  ingressesUsingSecret(secretKey: string): Ingress[];
  ingressesUsingService(serviceKey: string): Ingress[];
}

/** Change keys are `Kind/namespace/name` (or `Kind/name` for cluster-scoped kinds). */
export function changeKey(kind: Kind, key: string): string {
  return `${kind}/${key}`;
}

type Caches = { [K in Kind]: ObjectCache<KindTypes[K]> };

export class Store implements StoreSnapshot {
  readonly changes: ChangeFeed;
  private readonly caches: Caches;
  private readonly ownClasses = new Map<string, IngressClass>();
  private readonly decisions = new Map<string, ClassDecision>();
  private readonly ingressSecrets = new ReferenceIndex();
  private readonly ingressConfigMaps = new ReferenceIndex();
  private readonly ingressServices = new ReferenceIndex();
  private readonly sliceServices = new ReferenceIndex();
  /** ConfigMaps the global ConfigMap names (add-headers, proxy-set-headers): a change re-syncs as one of the global ConfigMap would. */
  private settingsConfigMaps: readonly string[] = [];
  /** Changes of Services, EndpointSlices and Namespaces (which make them visible) so far: serviceGeneration. */
  private serviceChanges = 0;
  /** Those and changes of Secrets and ConfigMaps: objectGeneration. */
  private objectChanges = 0;

  constructor(
    private readonly settings: StoreSettings,
    changes: ChangeFeed = new ChangeFeed(),
  ) {
    this.changes = changes;
    this.caches = {
      Ingress: new ObjectCache((key, before, after) => this.onIngress(key, before, after)),
      IngressClass: new ObjectCache((key, before, after) => this.onIngressClass(key, before, after)),
      Service: new ObjectCache((key, before, after) => this.onNamespaced('Service', key, before, after)),
      EndpointSlice: new ObjectCache((key, before, after) => this.onEndpointSlice(key, before, after)),
      Secret: new ObjectCache((key, before, after) => this.onNamespaced('Secret', key, before, after)),
      ConfigMap: new ObjectCache((key, before, after) => this.onNamespaced('ConfigMap', key, before, after)),
      Namespace: new ObjectCache((key, before, after) => this.onNamespace(key, before, after)),
    };
  }

  sink<K extends Kind>(kind: K): ObjectSink<KindTypes[K]> {
    return this.caches[kind];
  }

  /** Every cached object of a kind, unfiltered (for tests and diagnostics). */
  all<K extends Kind>(kind: K): KindTypes[K][] {
    return [...(this.caches[kind] as ObjectCache<KindTypes[K]>).values()];
  }

  // ---- StoreSnapshot ----

  ingresses(): Ingress[] {
    const result: Ingress[] = [];
    for (const [key, decision] of this.decisions) {
      const ingress = this.caches.Ingress.get(key);
      if (decision.managed && ingress && this.isServed(ingress)) result.push(ingress);
    }
    return result;
  }

  ingress(key: string): Ingress | undefined {
    const ingress = this.caches.Ingress.get(key);
    return ingress && this.decisions.get(key)?.managed && this.isServed(ingress) ? ingress : undefined;
  }

  ingressClasses(): IngressClass[] {
    return [...this.ownClasses.values()];
  }

  service(key: string): Service | undefined {
    return this.visible(this.caches.Service.get(key));
  }

  /** A number that changes whenever what service() or endpointSlicesOfService() answer may have (the model's memo skips their lookups while it holds). */
  serviceGeneration(): number {
    return this.serviceChanges;
  }

  /** A number that changes whenever service(), endpointSlicesOfService(), secret() or configMap() may answer differently. */
  objectGeneration(): number {
    return this.objectChanges;
  }

  endpointSlicesOfService(serviceKey: string): EndpointSlice[] {
    const slices: EndpointSlice[] = [];
    for (const sliceKey of this.sliceServices.referrersOf(serviceKey)) {
      const slice = this.visible(this.caches.EndpointSlice.get(sliceKey));
      if (slice) slices.push(slice);
    }
    return slices;
  }

  secret(key: string): Secret | undefined {
    return this.visible(this.caches.Secret.get(key));
  }

  configMap(key: string): ConfigMap | undefined {
    return this.visible(this.caches.ConfigMap.get(key));
  }

  ingressesUsingSecret(secretKey: string): Ingress[] {
    return this.servedIngresses(this.ingressSecrets.referrersOf(secretKey));
  }

  ingressesUsingService(serviceKey: string): Ingress[] {
    return this.servedIngresses(this.ingressServices.referrersOf(serviceKey));
  }

  /** The sync loop names the ConfigMaps the current settings read. */
  setSettingsConfigMaps(keys: readonly string[]): void {
    this.settingsConfigMaps = keys;
  }

  /** Ingresses whose annotations name the ConfigMap (auth-proxy-set-headers, fastcgi-params-configmap). */
  ingressesUsingConfigMap(configMapKey: string): Ingress[] {
    return this.servedIngresses(this.ingressConfigMaps.referrersOf(configMapKey));
  }

  // ---- filters ----

  /** With --watch-namespace-selector: whether the namespace is selected (always true without it). */
  inWatchedNamespace(namespace: string | undefined): boolean {
    if (!this.settings.namespaceSelectorActive || namespace === undefined) return true;
    return this.caches.Namespace.get(namespace) !== undefined;
  }

  private visible<T extends KubeObject>(object: T | undefined): T | undefined {
    return object && this.inWatchedNamespace(object.metadata?.namespace) ? object : undefined;
  }

  private isServed(ingress: Ingress): boolean {
    if (!this.inWatchedNamespace(ingress.metadata?.namespace)) return false;
    return !(this.settings.disableCatchAll && isCatchAllIngress(ingress));
  }

  private servedIngresses(keys: Iterable<string>): Ingress[] {
    const result: Ingress[] = [];
    for (const key of keys) {
      const ingress = this.ingress(key);
      if (ingress) result.push(ingress);
    }
    return result;
  }

  // ---- change handling: keep indexes current, and push only changes that can affect the model ----

  private onIngress(key: string, before: Ingress | undefined, after: Ingress | undefined): void {
    const wasServed = before !== undefined && this.decisions.get(key)?.managed === true && this.isServed(before);
    if (after) {
      this.decisions.set(key, decideIngressClass(after, this.ownClasses, this.settings));
      this.ingressSecrets.set(key, secretsOfIngress(after, this.settings.annotationsPrefix));
      this.ingressConfigMaps.set(key, configMapsOfIngress(after, this.settings.annotationsPrefix));
      this.ingressServices.set(key, servicesOfIngress(after, this.settings.annotationsPrefix));
    } else {
      this.decisions.delete(key);
      this.ingressSecrets.delete(key);
      this.ingressConfigMaps.delete(key);
      this.ingressServices.delete(key);
    }
    const isServed = after !== undefined && this.ingress(key) !== undefined;
    if (wasServed || isServed) this.changes.push(changeKey('Ingress', key));
  }

  private onIngressClass(key: string, before: IngressClass | undefined, after: IngressClass | undefined): void {
    const wasOwn = before !== undefined && isOwnIngressClass(before, this.settings);
    const isOwn = after !== undefined && isOwnIngressClass(after, this.settings);
    if (isOwn && after) this.ownClasses.set(key, after);
    else this.ownClasses.delete(key);
    if (!wasOwn && !isOwn) return;
    this.changes.push(changeKey('IngressClass', key));
    // Which Ingresses are ours may have changed: decide them all again.
    for (const ingress of this.caches.Ingress.values()) {
      const ingressKey = objectKey(ingress);
      const previous = this.decisions.get(ingressKey);
      const next = decideIngressClass(ingress, this.ownClasses, this.settings);
      this.decisions.set(ingressKey, next);
      if (previous?.managed !== next.managed) this.changes.push(changeKey('Ingress', ingressKey));
    }
  }

  private onEndpointSlice(key: string, before: EndpointSlice | undefined, after: EndpointSlice | undefined): void {
    this.serviceChanges++;
    this.objectChanges++;
    const serviceOf = (slice: EndpointSlice | undefined) => {
      const name = slice?.metadata?.labels?.[SERVICE_NAME_LABEL];
      return name ? `${slice?.metadata?.namespace ?? ''}/${name}` : undefined;
    };
    const services = [serviceOf(before), serviceOf(after)].filter((s): s is string => s !== undefined);
    if (after)
      this.sliceServices.set(
        key,
        [serviceOf(after)].filter((s): s is string => s !== undefined),
      );
    else this.sliceServices.delete(key);
    if (services.some((service) => this.isServiceRelevant(service))) this.changes.push(changeKey('EndpointSlice', key));
  }

  private onNamespaced(kind: 'Service' | 'Secret' | 'ConfigMap', key: string, _before: unknown, _after: unknown): void {
    if (kind === 'Service') this.serviceChanges++;
    this.objectChanges++;
    if (this.isRelevant(kind, key)) this.changes.push(changeKey(kind, key));
  }

  private onNamespace(key: string, _before: Namespace | undefined, _after: Namespace | undefined): void {
    this.serviceChanges++;
    this.objectChanges++;
    if (!this.settings.namespaceSelectorActive) return;
    // Entering or leaving the selector changes the visibility of everything in that namespace.
    this.changes.push(changeKey('Namespace', key));
    for (const kind of ['Ingress', 'Service', 'EndpointSlice', 'Secret', 'ConfigMap'] as const) {
      for (const object of this.caches[kind].values()) {
        if (object.metadata?.namespace === key) this.changes.push(changeKey(kind, objectKey(object)));
      }
    }
  }

  private isRelevant(kind: 'Service' | 'Secret' | 'ConfigMap', key: string): boolean {
    switch (kind) {
      case 'Service':
        return this.isServiceRelevant(key);
      case 'Secret':
        return key === this.settings.defaultSslCertificate || this.ingressesUsingSecret(key).length > 0 || this.isSettingsSecret(key);
      case 'ConfigMap':
        return (
          this.settings.configMaps.includes(key) || this.settingsConfigMaps.includes(key) || this.ingressesUsingConfigMap(key).length > 0
        );
    }
  }

  /** A Secret the global ConfigMap names (ssl-dh-param). */
  private isSettingsSecret(key: string): boolean {
    return this.settings.configMaps.some((configMap) => secretsOfSettings(this.caches.ConfigMap.get(configMap)).includes(key));
  }

  private isServiceRelevant(key: string): boolean {
    return (
      key === this.settings.defaultBackendService ||
      this.ingressesUsingService(key).length > 0 ||
      isStreamService(
        key,
        this.settings.configMaps.map((configMap) => this.caches.ConfigMap.get(configMap)),
      )
    );
  }
}
