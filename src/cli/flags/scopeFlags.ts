// Flags that say which cluster Portico reads and which of its objects are Portico's: API access,
// watched namespaces, the Ingress class.
import type { FlagDefinition } from './flagDefinition.js';

export const SCOPE_FLAGS = [
  {
    name: 'apiserver-host',
    kind: 'string',
    default: '',
    implemented: true,
    description: 'Kubernetes API server URL (protocol://address:port); in-cluster discovery when empty.',
  },
  {
    name: 'kubeconfig',
    kind: 'string',
    default: '',
    implemented: true,
    description: 'Path to a kubeconfig file with the API server address and credentials.',
  },
  {
    name: 'certificate-authority',
    kind: 'string',
    default: '',
    implemented: true,
    description: 'CA certificate file to trust the API server named by --apiserver-host.',
  },
  {
    name: 'watch-namespace',
    kind: 'string',
    default: '',
    implemented: true,
    description: 'Only watch objects in this namespace; all namespaces when empty.',
  },
  {
    name: 'watch-namespace-selector',
    kind: 'string',
    default: '',
    implemented: true,
    description: 'Only watch namespaces matching this label selector (exclusive with --watch-namespace).',
  },
  {
    name: 'sync-period',
    kind: 'duration',
    default: 0,
    implemented: true,
    description: 'How often every watched kind is listed again from the API server (its watch keeps running between); 0 disables it.',
  },
  {
    name: 'disable-sync-events',
    kind: 'bool',
    default: false,
    implemented: true,
    description: "Do not create 'Sync' Event objects (the syncs are still logged).",
  },

  // Class selection
  {
    name: 'ingress-class',
    kind: 'string',
    default: 'nginx',
    implemented: true,
    description: 'Value of the deprecated kubernetes.io/ingress.class annotation this controller handles.',
  },
  {
    name: 'controller-class',
    kind: 'string',
    default: 'k8s.io/ingress-nginx',
    implemented: true,
    description: 'IngressClass spec.controller value this controller handles.',
  },
  {
    name: 'ingress-class-by-name',
    kind: 'bool',
    default: false,
    implemented: true,
    description: 'Also handle Ingresses whose IngressClass name equals --ingress-class.',
  },
  {
    name: 'watch-ingress-without-class',
    kind: 'bool',
    default: false,
    implemented: true,
    description: 'Also handle Ingresses that name no class at all.',
  },
  {
    name: 'annotations-prefix',
    kind: 'string',
    default: 'nginx.ingress.kubernetes.io',
    implemented: true,
    description: 'Prefix of the Ingress annotations this controller reads.',
  },
] as const satisfies readonly FlagDefinition[];
