// The kinds of Ingress change bench/ingressAtScale.ts times, each with the
// answer that proves nginx serves it: issue 18's "any Ingress change answers
// within 1 s". Every answer is one the state before the change cannot give,
// so the first right answer is the change's, never a leftover.
import type { V1Ingress } from '@kubernetes/client-node';
import { applyIngress, ingress, paths, type E2eCluster } from '../../test/support/e2eCluster.js';
import { echoed, type HttpResult } from '../../test/support/httpGet.js';
import type { TestCertificate } from '../../test/support/tlsSecrets.js';
import { ANNOTATIONS_PREFIX, DOMAIN } from './syntheticCluster.js';

/** The two echo Services: a backend edit switches between them. */
export const SERVICES = ['echo', 'echo-b'] as const;

/** The request that shows a change served, and why an answer is not that yet (undefined: it is). */
export interface ChangeProbe {
  host: string;
  path: string;
  https: boolean;
  rejects: (result: HttpResult) => string | undefined;
}

export interface ChangeKind {
  name: string;
  /** Objects the samples change, created with the existing Ingresses (served before the first sample). */
  prepare(cluster: E2eCluster, samples: number): Promise<void>;
  /** Makes the `sample`th change through the API; resolves once the write has returned. */
  change(cluster: E2eCluster, sample: number, certificate: TestCertificate): Promise<ChangeProbe>;
}

const nothingToPrepare = async (): Promise<void> => {};

function host(name: string): string {
  return `${name}.${DOMAIN}`;
}

/** A 200 from `service`'s echo backend, with `check` on its echo (a reason, or undefined when right). */
function answersFrom(service: string, check: (echo: ReturnType<typeof echoed>) => string | undefined = () => undefined) {
  return (result: HttpResult): string | undefined => {
    if (result.status !== 200) return `HTTP ${result.status}`;
    const echo = echoed(result);
    return echo.service === service ? check(echo) : `answered by ${echo.service}`;
  };
}

function oneHost(cluster: E2eCluster, name: string, path: string, pathType: 'Prefix' | 'ImplementationSpecific', service: string) {
  return ingress(cluster, name, { rules: [{ host: host(name), http: { paths: paths([path, pathType, service]) } }] });
}

async function create(cluster: E2eCluster, body: V1Ingress): Promise<void> {
  await cluster.networking.createNamespacedIngress({ namespace: cluster.namespace, body });
}

const EDITED = 'edited';
const ANNOTATED = 'annotated';
const PATHS = 'paths';

export const CHANGE_KINDS: readonly ChangeKind[] = [
  {
    name: 'new plain host',
    prepare: nothingToPrepare,
    async change(cluster, sample) {
      await create(cluster, oneHost(cluster, `plain-${sample}`, '/', 'Prefix', SERVICES[0]));
      return { host: host(`plain-${sample}`), path: '/', https: false, rejects: answersFrom(SERVICES[0]) };
    },
  },
  {
    name: 'new TLS host (HTTPS)',
    prepare: nothingToPrepare,
    async change(cluster, sample, certificate) {
      const name = `tls-${sample}`;
      const data = { 'tls.crt': certificate.certificatePem, 'tls.key': certificate.keyPem };
      await cluster.core.createNamespacedSecret({
        namespace: cluster.namespace,
        body: { metadata: { name }, type: 'kubernetes.io/tls', stringData: data },
      });
      const body = oneHost(cluster, name, '/', 'Prefix', SERVICES[0]);
      await create(cluster, { ...body, spec: { ...body.spec, tls: [{ hosts: [host(name)], secretName: name }] } });
      return { host: host(name), path: '/', https: true, rejects: answersFrom(SERVICES[0]) };
    },
  },
  {
    name: 'new host with a regex path',
    prepare: nothingToPrepare,
    async change(cluster, sample) {
      const name = `regex-${sample}`;
      const body = oneHost(cluster, name, '/v[0-9]+/items', 'ImplementationSpecific', SERVICES[0]);
      await create(cluster, { ...body, metadata: { ...body.metadata, annotations: { [`${ANNOTATIONS_PREFIX}/use-regex`]: 'true' } } });
      return { host: host(name), path: '/V2/items/7', https: false, rejects: answersFrom(SERVICES[0]) };
    },
  },
  {
    name: 'new path on an existing host',
    prepare: (cluster) => create(cluster, oneHost(cluster, PATHS, '/', 'Prefix', SERVICES[0])),
    async change(cluster, sample) {
      const body = ingress(cluster, `${PATHS}-${sample}`, {
        rules: [{ host: host(PATHS), http: { paths: paths([`/added-${sample}`, 'Prefix', SERVICES[1]]) } }],
      });
      await create(cluster, body);
      return { host: host(PATHS), path: `/added-${sample}/x`, https: false, rejects: answersFrom(SERVICES[1]) };
    },
  },
  {
    name: "an existing location's backend",
    prepare: (cluster) => create(cluster, oneHost(cluster, EDITED, '/', 'Prefix', SERVICES[0])),
    async change(cluster, sample) {
      const service = SERVICES[(sample + 1) % 2]!;
      await applyIngress(cluster, oneHost(cluster, EDITED, '/', 'Prefix', service));
      return { host: host(EDITED), path: '/', https: false, rejects: answersFrom(service) };
    },
  },
  {
    name: 'an annotation (rewrite-target)',
    prepare: (cluster) => create(cluster, oneHost(cluster, ANNOTATED, '/', 'Prefix', SERVICES[0])),
    async change(cluster, sample) {
      const target = `/rewritten-${sample}`;
      const body = oneHost(cluster, ANNOTATED, '/', 'Prefix', SERVICES[0]);
      await applyIngress(cluster, {
        ...body,
        metadata: { ...body.metadata, annotations: { [`${ANNOTATIONS_PREFIX}/rewrite-target`]: target } },
      });
      const rewritten = (echo: ReturnType<typeof echoed>) => (echo.path === target ? undefined : `path ${echo.path}`);
      return { host: host(ANNOTATED), path: '/', https: false, rejects: answersFrom(SERVICES[0], rewritten) };
    },
  },
  {
    name: 'a deletion',
    async prepare(cluster, samples) {
      for (let sample = 0; sample < samples; sample++)
        await create(cluster, oneHost(cluster, `gone-${sample}`, '/', 'Prefix', SERVICES[0]));
    },
    async change(cluster, sample) {
      await cluster.networking.deleteNamespacedIngress({ namespace: cluster.namespace, name: `gone-${sample}` });
      // The catch-all's answer: the host is no longer served.
      return {
        host: host(`gone-${sample}`),
        path: '/',
        https: false,
        rejects: (result) => (result.status === 404 ? undefined : `HTTP ${result.status}`),
      };
    },
  },
];
