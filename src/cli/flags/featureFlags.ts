// Flags of the controller's behaviour: health checks, sync pacing, what Ingress content is refused.
import type { FlagDefinition } from './flagDefinition.js';

export const FEATURE_FLAGS = [
  {
    name: 'enable-ssl-passthrough',
    kind: 'bool',
    default: false,
    implemented: true,
    description: 'Route TLS connections by SNI without terminating them.',
  },
  {
    name: 'health-check-path',
    kind: 'string',
    default: '/healthz',
    implemented: true,
    description: 'URL path of the health check endpoint.',
  },
  {
    name: 'health-check-timeout',
    kind: 'int',
    default: 10,
    implemented: true,
    description: 'Seconds a health check probe of nginx may take.',
  },
  {
    name: 'dynamic-configuration-retries',
    kind: 'int',
    default: 15,
    implemented: true,
    description: 'Attempts to push a dynamic configuration to nginx before the sync fails.',
  },
  { name: 'sync-rate-limit', kind: 'float', default: 0.3, implemented: true, description: 'Maximum full configuration syncs per second.' },
  {
    name: 'deep-inspect',
    kind: 'bool',
    default: true,
    implemented: true,
    description:
      "Refuse Ingresses whose hosts, paths or TLS Secret names match ingress-nginx's inspector patterns (nginx directives, /etc/nginx, /var/run/secrets, *_by_lua).",
  },
  {
    name: 'enable-annotation-validation',
    kind: 'bool',
    default: true,
    implemented: true,
    description: 'Check annotation values against their allowed syntax.',
    cannotApply:
      'false cannot switch the checks off: Portico checks every annotation value because nginx.conf is rendered from checked values only, so false is accepted and values are still checked',
  },
] as const satisfies readonly FlagDefinition[];
