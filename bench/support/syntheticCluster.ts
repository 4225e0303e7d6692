// A generated cluster of N Ingresses, shaped like a busy multi-team cluster:
// 1–2 hosts and 2–3 paths per Ingress, a third with TLS (each with its own
// Secret, as cert-manager creates them; all hold one wildcard certificate, and
// the model parses each Secret anyway), some annotations, a tenth in regex
// mode, two Services with two ready endpoints each per Ingress. Deterministic:
// Ingress i always looks the same, so runs and sizes compare.
import type { EndpointSlice, Ingress, IngressClass, Secret, Service } from '../../src/kube/objects.js';
import { SERVICE_NAME_LABEL } from '../../src/store/store.js';
import { selfSignedCertificate, type TestCertificate } from '../../test/support/tlsSecrets.js';
import { TEST_STORE_SETTINGS } from '../../test/support/watchCluster.js';

/** Every generated host's domain, which wildcardCertificate() covers. */
export const DOMAIN = 'bench.example';
const NAMESPACES = 100;
const BACKEND_PORT = 8080;
/** The store settings the cluster is made for: ingress-nginx's flag defaults. */
export const STORE_SETTINGS = TEST_STORE_SETTINGS;
export const ANNOTATIONS_PREFIX = STORE_SETTINGS.annotationsPrefix;

export interface SyntheticCluster {
  ingressClasses: IngressClass[];
  ingresses: Ingress[];
  services: Service[];
  endpointSlices: EndpointSlice[];
  secrets: Secret[];
}

/** One certificate for `*.<DOMAIN>`, which covers every generated host. */
export function wildcardCertificate(): Promise<TestCertificate> {
  return selfSignedCertificate([`*.${DOMAIN}`]);
}

/** Every TLS Secret holds `certificate` (wildcardCertificate()), so the model accepts each for its hosts. */
export function syntheticCluster(ingressCount: number, certificate: TestCertificate): SyntheticCluster {
  const cluster: SyntheticCluster = {
    ingressClasses: [
      { metadata: { name: STORE_SETTINGS.ingressClass, resourceVersion: '1' }, spec: { controller: STORE_SETTINGS.controllerClass } },
    ],
    ingresses: [],
    services: [],
    endpointSlices: [],
    secrets: [],
  };
  let resourceVersion = 1;
  const metadata = (namespace: string, name: string) => ({ namespace, name, resourceVersion: String(++resourceVersion) });
  const tlsData = {
    'tls.crt': Buffer.from(certificate.certificatePem).toString('base64'),
    'tls.key': Buffer.from(certificate.keyPem).toString('base64'),
  };

  for (let i = 0; i < ingressCount; i++) {
    const namespace = `team-${i % NAMESPACES}`;
    const name = `app-${i}`;
    const web = `web-${i}`;
    const api = `api-${i}`;
    for (const [index, service] of [web, api].entries()) {
      cluster.services.push({
        metadata: metadata(namespace, service),
        spec: { ports: [{ name: 'http', port: 80, targetPort: BACKEND_PORT }] },
      });
      cluster.endpointSlices.push({
        metadata: { ...metadata(namespace, `${service}-x7k2p`), labels: { [SERVICE_NAME_LABEL]: service } },
        addressType: 'IPv4',
        endpoints: [1, 2].map((n) => ({
          addresses: [`10.${(i >> 8) & 255}.${i & 255}.${index * 10 + n}`],
          conditions: { ready: true },
        })),
        ports: [{ name: 'http', port: BACKEND_PORT, protocol: 'TCP' }],
      });
    }

    const hosts = [`${name}.${DOMAIN}`, ...(i % 2 === 1 ? [`${name}-admin.${DOMAIN}`] : [])];
    const regexMode = i % 10 === 5;
    const paths = [
      // In regex mode every path is a regex, and the model refuses a rewrite-target naming a group the path lacks.
      regexMode
        ? { path: '/()(.*)', pathType: 'ImplementationSpecific', backend: { service: { name: web, port: { name: 'http' } } } }
        : { path: '/', pathType: 'Prefix', backend: { service: { name: web, port: { name: 'http' } } } },
      regexMode
        ? { path: '/api(/|$)(.*)', pathType: 'ImplementationSpecific', backend: { service: { name: api, port: { number: 80 } } } }
        : { path: '/api', pathType: 'Prefix', backend: { service: { name: api, port: { number: 80 } } } },
      ...(i % 3 === 0
        ? [
            {
              path: regexMode ? '/healthz()()' : '/healthz',
              pathType: regexMode ? 'ImplementationSpecific' : 'Exact',
              backend: { service: { name: web, port: { name: 'http' } } },
            },
          ]
        : []),
    ];
    const annotations: Record<string, string> = {
      ...(regexMode ? { [`${ANNOTATIONS_PREFIX}/rewrite-target`]: '/$2' } : {}),
      ...(i % 4 === 0 ? { [`${ANNOTATIONS_PREFIX}/proxy-body-size`]: '8m', [`${ANNOTATIONS_PREFIX}/proxy-read-timeout`]: '120' } : {}),
      ...(i % 7 === 0 ? { [`${ANNOTATIONS_PREFIX}/allowlist-source-range`]: '10.0.0.0/8,192.168.0.0/16' } : {}),
    };
    const tls = i % 3 === 0;
    if (tls) {
      cluster.secrets.push({ metadata: metadata(namespace, `${name}-tls`), type: 'kubernetes.io/tls', data: tlsData });
    }
    cluster.ingresses.push({
      metadata: {
        ...metadata(namespace, name),
        annotations,
        creationTimestamp: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(),
      },
      spec: {
        ingressClassName: STORE_SETTINGS.ingressClass,
        rules: hosts.map((host) => ({ host, http: { paths } })),
        ...(tls ? { tls: [{ hosts, secretName: `${name}-tls` }] } : {}),
      },
    });
  }
  return cluster;
}
