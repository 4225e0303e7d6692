// Flags naming the objects configuration comes from: the global ConfigMap, default backend and
// certificate, and which Services may be backends.
import type { FlagDefinition } from './flagDefinition.js';

export const SOURCE_FLAGS = [
  { name: 'configmap', kind: 'string', default: '', implemented: true, description: 'Global configuration ConfigMap, as namespace/name.' },
  {
    name: 'tcp-services-configmap',
    kind: 'string',
    default: '',
    implemented: true,
    description: 'ConfigMap mapping external TCP ports to namespace/service:port.',
  },
  {
    name: 'udp-services-configmap',
    kind: 'string',
    default: '',
    implemented: true,
    description: 'ConfigMap mapping external UDP ports to namespace/service:port.',
  },
  {
    name: 'default-backend-service',
    kind: 'string',
    default: '',
    implemented: true,
    description: 'Service (namespace/name) that receives requests no Ingress matches; its first port is used.',
  },
  {
    name: 'default-ssl-certificate',
    kind: 'string',
    default: '',
    implemented: true,
    description: 'TLS Secret (namespace/name) for the catch-all HTTPS server instead of a self-signed one.',
  },
  {
    name: 'disable-catch-all',
    kind: 'bool',
    default: false,
    implemented: true,
    description: 'Ignore Ingresses that only set spec.defaultBackend.',
  },
  {
    name: 'disable-svc-external-name',
    kind: 'bool',
    default: false,
    implemented: true,
    description: 'ExternalName Services give no endpoints (their backends answer 503; a Warning Event says why).',
  },
  {
    name: 'enable-ssl-chain-completion',
    kind: 'bool',
    default: false,
    implemented: false,
    description: 'Fetch missing intermediate certificates through the AIA extension.',
    cannotApply:
      "it fetches missing intermediates from the URLs in each certificate (AIA), a network call from the controller to wherever a Secret points, impossible offline; put the whole chain (certificate, then intermediates) in the Secret's tls.crt",
  },
  {
    name: 'enable-topology-aware-routing',
    kind: 'bool',
    default: false,
    implemented: true,
    description:
      "Use EndpointSlice zone hints for the controller's zone (its node's topology.kubernetes.io/zone, through POD_NAME/POD_NAMESPACE) when a Service asks for topology-aware routing.",
  },
] as const satisfies readonly FlagDefinition[];
