// Flags of the Ingress status, leader election and the admission webhook.
import type { FlagDefinition } from './flagDefinition.js';

const SECOND = 1000;

export const STATUS_FLAGS = [
  {
    name: 'update-status',
    kind: 'bool',
    default: true,
    implemented: true,
    description: 'Write the load-balancer address into the status of handled Ingresses.',
  },
  {
    name: 'publish-service',
    kind: 'string',
    default: '',
    implemented: true,
    description: 'Service (namespace/name) whose address is written into Ingress status.',
  },
  {
    name: 'publish-status-address',
    kind: 'string',
    default: '',
    implemented: true,
    description: 'Fixed comma-separated addresses to write into Ingress status.',
  },
  {
    name: 'report-node-internal-ip-address',
    kind: 'bool',
    default: false,
    implemented: true,
    description: 'Report node internal IPs instead of external ones in Ingress status.',
  },
  {
    name: 'status-update-interval',
    kind: 'int',
    default: 60,
    implemented: true,
    description: 'Seconds between checks whether Ingress status needs updating.',
  },
  {
    name: 'update-status-on-shutdown',
    kind: 'bool',
    default: true,
    implemented: true,
    description: 'Clear Ingress status when the last controller replica shuts down.',
  },
  {
    name: 'election-id',
    kind: 'string',
    default: 'ingress-controller-leader',
    implemented: true,
    description: 'Name of the leader election Lease.',
  },
  {
    name: 'election-ttl',
    kind: 'duration',
    default: 30 * SECOND,
    implemented: true,
    description: 'How long a leader election lease lasts before it must be renewed.',
  },
  { name: 'disable-leader-election', kind: 'bool', default: false, implemented: true, description: 'Run without leader election.' },

  // Admission webhook
  {
    name: 'validating-webhook',
    kind: 'string',
    default: '',
    implemented: true,
    description: 'Listen address (host:port) of the validating admission webhook; none when empty.',
  },
  {
    name: 'validating-webhook-certificate',
    kind: 'string',
    default: '',
    implemented: true,
    description: 'PEM certificate file of the admission webhook.',
  },
  {
    name: 'validating-webhook-key',
    kind: 'string',
    default: '',
    implemented: true,
    description: 'PEM private key file of the admission webhook.',
  },
  {
    name: 'disable-full-test',
    kind: 'bool',
    default: false,
    implemented: true,
    description: 'Validate only the submitted Ingress at admission, not the whole merged configuration.',
  },
] as const satisfies readonly FlagDefinition[];
