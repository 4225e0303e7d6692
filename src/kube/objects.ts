// Kubernetes objects as they travel on the wire (JSON), typed from
// client-node's generated models. client-node's list calls turn timestamps into
// Date while watch events keep strings; Portico never deserialises through the
// client, so every object is plain JSON and every timestamp a string.
import type {
  V1ConfigMap,
  V1EndpointSlice,
  V1Ingress,
  V1IngressClass,
  V1Lease,
  V1Namespace,
  V1Node,
  V1ObjectMeta,
  V1Pod,
  V1Secret,
  V1Service,
} from '@kubernetes/client-node';

export type Wire<T> = T extends Date ? string : T extends (infer U)[] ? Wire<U>[] : T extends object ? { [K in keyof T]: Wire<T[K]> } : T;

export type ObjectMeta = Wire<V1ObjectMeta>;
export type Ingress = Wire<V1Ingress>;
export type IngressClass = Wire<V1IngressClass>;
export type Service = Wire<V1Service>;
export type EndpointSlice = Wire<V1EndpointSlice>;
export type Secret = Wire<V1Secret>;
export type ConfigMap = Wire<V1ConfigMap>;
export type Namespace = Wire<V1Namespace>;
export type Lease = Wire<V1Lease>;
export type Pod = Wire<V1Pod>;
export type Node = Wire<V1Node>;

/** The kinds Portico watches, and the object type of each. */
export interface KindTypes {
  Ingress: Ingress;
  IngressClass: IngressClass;
  Service: Service;
  EndpointSlice: EndpointSlice;
  Secret: Secret;
  ConfigMap: ConfigMap;
  Namespace: Namespace;
}
export type Kind = keyof KindTypes;
export const KINDS: readonly Kind[] = ['Ingress', 'IngressClass', 'Service', 'EndpointSlice', 'Secret', 'ConfigMap', 'Namespace'];

/** Any object with metadata, as the reflector and manifest source see it. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
}

/** `namespace/name`, or `name` for cluster-scoped objects (client-go's MetaNamespaceKey). */
export function objectKey(obj: KubeObject): string {
  const name = obj.metadata?.name ?? '';
  const namespace = obj.metadata?.namespace;
  return namespace ? `${namespace}/${name}` : name;
}
