// A generated cluster of N Ingresses, shaped like a busy multi-team cluster:
// 1–2 hosts and 2–3 paths per Ingress, a third with TLS (each with its own
// Secret, as cert-manager creates them), some annotations, a tenth in regex
// mode, two Services with two ready endpoints each per Ingress. Deterministic:
// Ingress i always looks the same, so runs and sizes compare.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { EndpointSlice, Ingress, IngressClass, Secret, Service } from '../../src/kube/objects.js';
import { SERVICE_NAME_LABEL, type StoreSettings } from '../../src/store/store.js';

const run = promisify(execFile);

export const DOMAIN = 'bench.example';
const NAMESPACES = 100;
const BACKEND_PORT = 8080;
const CLASS_NAME = 'nginx';
const CONTROLLER_CLASS = 'k8s.io/ingress-nginx';
export const ANNOTATIONS_PREFIX = 'nginx.ingress.kubernetes.io';

/** What ingress-nginx's flags default to, as the store sees them. */
export const STORE_SETTINGS: StoreSettings = {
  ingressClass: CLASS_NAME,
  controllerClass: CONTROLLER_CLASS,
  ingressClassByName: false,
  watchIngressWithoutClass: false,
  annotationsPrefix: ANNOTATIONS_PREFIX,
  disableCatchAll: false,
  namespaceSelectorActive: false,
  configMaps: [],
};

export interface SyntheticCluster {
  ingressClasses: IngressClass[];
  ingresses: Ingress[];
  services: Service[];
  endpointSlices: EndpointSlice[];
  secrets: Secret[];
}

/** A certificate and key (PEM) for `*.<DOMAIN>`, which covers every generated host. */
export interface WildcardCertificate {
  certificatePem: string;
  keyPem: string;
}

export async function createWildcardCertificate(): Promise<WildcardCertificate> {
  const dir = await mkdtemp(join(tmpdir(), 'portico-bench-cert-'));
  try {
    const certFile = join(dir, 'cert.pem');
    const keyFile = join(dir, 'key.pem');
    await run('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
      '-keyout', keyFile, '-out', certFile, '-days', '2', '-subj', `/CN=*.${DOMAIN}`,
      '-addext', `subjectAltName=DNS:*.${DOMAIN}`], { timeout: 30_000 });
    return { certificatePem: await readFile(certFile, 'utf8'), keyPem: await readFile(keyFile, 'utf8') };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export function syntheticCluster(ingressCount: number, certificate: WildcardCertificate): SyntheticCluster {
  const cluster: SyntheticCluster = {
    ingressClasses: [{ metadata: { name: CLASS_NAME, resourceVersion: '1' }, spec: { controller: CONTROLLER_CLASS } }],
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
      { path: '/', pathType: 'Prefix', backend: { service: { name: web, port: { name: 'http' } } } },
      regexMode
        ? { path: '/api(/|$)(.*)', pathType: 'ImplementationSpecific', backend: { service: { name: api, port: { number: 80 } } } }
        : { path: '/api', pathType: 'Prefix', backend: { service: { name: api, port: { number: 80 } } } },
      ...(i % 3 === 0 ? [{ path: '/healthz', pathType: 'Exact', backend: { service: { name: web, port: { name: 'http' } } } }] : []),
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
        ingressClassName: CLASS_NAME,
        rules: hosts.map((host) => ({ host, http: { paths } })),
        ...(tls ? { tls: [{ hosts, secretName: `${name}-tls` }] } : {}),
      },
    });
  }
  return cluster;
}
