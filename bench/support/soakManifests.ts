// The soak's sample of the synthetic cluster (support/syntheticManifests.ts:
// one file per Ingress with the objects it owns), and the edits it makes to
// their files. Roles are chosen by the generated objects' shape, the first
// Ingress of each kind: stable ones (plain, TLS, regex mode, annotated) that
// the load checks never change, and changing ones (an Ingress edited every
// round, one whose endpoints churn, one whose certificate rotates). None has
// an allowlist: the load comes from 127.0.0.1, which it would refuse.
import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';
import { SERVICE_NAME_LABEL } from '../../src/store/store.js';
import { ANNOTATIONS_PREFIX } from './syntheticCluster.js';

export const SOAK_ROLES = ['plain', 'tls', 'regex', 'annotated', 'edited', 'churned', 'rotated'] as const;
export type SoakRole = (typeof SOAK_ROLES)[number];

interface Manifest {
  kind: string;
  metadata: { name: string; annotations?: Record<string, string>; labels?: Record<string, string> };
  spec?: {
    rules?: { host: string; http: { paths: { path: string; pathType: string; backend: unknown }[] } }[];
    tls?: unknown[];
  };
  endpoints?: { addresses: string[]; conditions: { ready: boolean } }[];
  data?: Record<string, string>;
}

/** One Ingress's file: its objects, edited in memory and written whole. */
export class IngressFile {
  private readonly documents: Manifest[];
  private readonly basePaths: string;

  constructor(
    private readonly path: string,
    text: string,
  ) {
    this.documents = parseAllDocuments(text).map((document) => document.toJS() as Manifest);
    this.basePaths = JSON.stringify(this.ingress().spec?.rules?.map((rule) => rule.http.paths));
  }

  ingress(): Manifest {
    return this.documents.find((document) => document.kind === 'Ingress')!;
  }

  /** The Ingress's first host. */
  host(): string {
    return this.ingress().spec!.rules![0]!.host;
  }

  hosts(): [string, ...string[]] {
    return this.ingress().spec!.rules!.map((rule) => rule.host) as [string, ...string[]];
  }

  /** The EndpointSlices of the file (of its Services named `<service>-<i>` only, if given) list `addresses` (live backends), all ready. */
  setEndpoints(addresses: readonly string[], service?: 'web' | 'api'): void {
    const slices = this.documents.filter((document) => document.kind === 'EndpointSlice');
    for (const slice of slices.filter(
      (each) => service === undefined || each.metadata.labels?.[SERVICE_NAME_LABEL]?.startsWith(`${service}-`),
    )) {
      slice.endpoints = addresses.map((address) => ({ addresses: [address], conditions: { ready: true } }));
    }
  }

  /**
   * The generated paths plus `extra` on every rule, a Prefix path to the second path's backend (the `api-<i>`
   * Service; the first, `/`, goes to `web-<i>`), so an answer tells which location took it. The previous extra goes.
   */
  setExtraPath(extra: string): void {
    const base = JSON.parse(this.basePaths) as { path: string; pathType: string; backend: unknown }[][];
    for (const [index, rule] of this.ingress().spec!.rules!.entries()) {
      const paths = base[index]!;
      rule.http.paths = [...paths, { path: extra, pathType: 'Prefix', backend: paths[1]!.backend }];
    }
  }

  setAnnotation(name: string, value: string): void {
    const metadata = this.ingress().metadata;
    metadata.annotations = { ...metadata.annotations, [`${ANNOTATIONS_PREFIX}/${name}`]: value };
  }

  /** The TLS Secret holds this certificate and key (PEM) instead. */
  setCertificate(certificatePem: string, keyPem: string): void {
    const secret = this.documents.find((document) => document.kind === 'Secret')!;
    secret.data = { 'tls.crt': Buffer.from(certificatePem).toString('base64'), 'tls.key': Buffer.from(keyPem).toString('base64') };
  }

  /** Written beside it under a hidden name (manifest mode skips those), then renamed: Portico never reads half a file. */
  async write(): Promise<void> {
    const [folder, name] = [join(this.path, '..'), this.path.split('/').pop()!];
    const partial = join(folder, `.${name}.partial`);
    await writeFile(partial, this.documents.map((document) => stringify(document)).join('---\n'));
    await rename(partial, this.path);
  }
}

function roleOf(file: IngressFile): SoakRole | 'unusable' {
  const ingress = file.ingress();
  const annotations = Object.keys(ingress.metadata.annotations ?? {}).map((key) => key.slice(ANNOTATIONS_PREFIX.length + 1));
  if (annotations.includes('allowlist-source-range')) return 'unusable';
  const tls = (ingress.spec?.tls ?? []).length > 0;
  if (annotations.includes('rewrite-target')) return tls ? 'unusable' : 'regex';
  if (annotations.length > 0) return tls ? 'unusable' : 'annotated';
  return tls ? 'tls' : 'plain';
}

/** The roles' Ingress files, from the first of `texts` (ingress-<i>.yaml's text by i) in `dir`. */
export function pickSoakSample(dir: string, texts: readonly string[]): Record<SoakRole, IngressFile> {
  // Which generated shape each role takes; the changing ones after the stable ones of the same shape.
  const shapeOf: Record<SoakRole, SoakRole> = {
    plain: 'plain',
    tls: 'tls',
    regex: 'regex',
    annotated: 'annotated',
    edited: 'plain',
    churned: 'plain',
    rotated: 'tls',
  };
  const picked: Partial<Record<SoakRole, IngressFile>> = {};
  let next = 0;
  for (const role of SOAK_ROLES) {
    for (; next < texts.length && picked[role] === undefined; next++) {
      const file = new IngressFile(join(dir, `ingress-${next}.yaml`), texts[next]!);
      if (roleOf(file) === shapeOf[role] && !Object.values(picked).some((other) => other.host() === file.host())) picked[role] = file;
    }
    if (picked[role] === undefined) throw new Error(`no Ingress for the soak's ${role} role among ${texts.length}: use more Ingresses`);
    next = 0;
  }
  return picked as Record<SoakRole, IngressFile>;
}
