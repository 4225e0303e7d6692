// The model: a pure function from the accepted Ingresses, the objects they
// name and the settings to the desired configuration. Ingress v1 semantics
// where the spec speaks; ingress-nginx's merge rules where it is silent
// (oldest Ingress wins, host-wide regex mode, per-host default backends,
// canaries merged into their primaries' backends).
import type { ConfigMap, Ingress, Secret } from '../kube/objects.js';
import type { EndpointPolicy, ServiceLookup } from './backends.js';
import { ingressKey, scopeAffinity } from './affinityScope.js';
import { BackendTable, unclaimedBalancing, type BalancingClaim } from './backendTable.js';
import { mergeCanaries, type CanaryIngress } from './canaries.js';
import { certificateCoversHost, certificateFromSecret } from './certificates.js';
import { certificateSecretKey, finishServer, type DraftServer } from './finishServer.js';
import { CATCH_ALL, ingressRef } from './ingressRules.js';
import { ingressShare, shareDrafts } from './ingressShare.js';
import { resolveGlobalHeaders } from './globalHeaders.js';
import { withHostAliases } from './hostAliases.js';
import { compareIngressAge } from './ingressOrder.js';
import { defaultBackendAnnotations } from './defaultBackendLogs.js';
import type { DraftLocation } from './locations.js';
import type { ModelMemo } from './memo/modelMemo.js';
import { byIngress, certificateOrder, serverOrder } from './configurationOrder.js';
import { referenceContext, resolveReferencedObjects } from './referencedObjects.js';
import { streamServicesOf, type ConfigMapProblem, type StreamServiceSources } from './stream/streamServices.js';
import { SecretFileSet } from './secretFiles.js';
import { streamConfiguration } from './stream/streamConfiguration.js';
import { ingressStreamSnippets } from './stream/streamSnippets.js';
import { sslPassthroughParts } from './stream/passthroughHosts.js';
import { tlsSettingsFiles } from './tlsSettingsFiles.js';
import type { GlobalSettings } from './settings/globalSettings.js';
import type { Certificate, Configuration, IngressAnnotations, IngressProblem, IngressRef, LocationAnnotations, Server } from './types.js';

/** An Ingress version whose annotations and paths passed validation. */
export interface AcceptedIngress {
  ingress: Ingress;
  annotations: IngressAnnotations;
}

export interface ModelInput {
  /** Served, validated Ingresses (any order). */
  ingresses: readonly AcceptedIngress[];
  lookup: ServiceLookup & {
    secret(key: string): Secret | undefined;
    configMap(key: string): ConfigMap | undefined;
    /** Optional: a number that changes whenever any lookup may answer differently (memo/isolatedChanges.ts). */
    objectGeneration?(): number;
  };
  settings: GlobalSettings;
  /** Annotations of locations Portico generates (the settings' defaults). */
  defaultAnnotations: LocationAnnotations;
  /** `--default-backend-service` (`namespace/name`). */
  defaultBackendService?: string;
  /** `--default-ssl-certificate` (`namespace/name`). */
  defaultSslCertificate?: string;
  /** Portico's own addresses and ports, and whether ExternalName Services are allowed. */
  endpoints: EndpointPolicy;
  /** `--tcp-services-configmap`, `--udp-services-configmap`. */
  streamServices?: StreamServiceSources;
  /** `--enable-ssl-passthrough`: hosts with the ssl-passthrough annotation go by SNI to their backends (stream/passthroughHosts.ts). */
  sslPassthrough?: boolean;
}

export interface ModelResult {
  configuration: Configuration;
  /** Per-Ingress problems, for logs and Kubernetes Events. */
  problems: IngressProblem[];
  /** Problems of the controller's own settings (default certificate, default backend) and EndpointSlice endpoints left out. */
  warnings: string[];
  /** Problems of entries of the controller's ConfigMaps (TCP/UDP services), for Events on them. */
  configMapProblems: ConfigMapProblem[];
}

/**
 * `memo`: what the last run with it kept (memo/modelMemo.ts); the result is the same with or without it,
 * and with it a run after a small change recomputes only what the change touched: after changes of
 * isolated Ingresses only their part (memo/isolatedChanges.ts), else a whole run that reuses per object.
 */
export function buildConfiguration(input: ModelInput, memo?: ModelMemo): ModelResult {
  if (memo === undefined) return buildWhole(input);
  return memo.isolated.apply(input, (alone) => buildWhole(alone)) ?? buildWhole(input, memo);
}

function buildWhole(input: ModelInput, memo?: ModelMemo): ModelResult {
  const problems: IngressProblem[] = [];
  const warnings: string[] = [];
  const configMapProblems: ConfigMapProblem[] = [];
  const backends = new BackendTable(input.lookup, unclaimedBalancing(input.settings), input.endpoints, warnings, memo);

  const defaultBackend = defaultBackendOf(input, backends, warnings);
  const servers = new Map<string, DraftServer>();
  const serverFor = (hostname: string, rootBackend: string | undefined, ingress: IngressRef | undefined): DraftServer => {
    let server = servers.get(hostname);
    if (!server) {
      server = { hostname, locations: [generatedRoot(rootBackend, ingress, input.defaultAnnotations)] };
      servers.set(hostname, server);
    }
    return server;
  };
  servers.set(CATCH_ALL, {
    hostname: CATCH_ALL,
    locations: [generatedRoot(defaultBackend, undefined, defaultBackendAnnotations(input.defaultAnnotations, input.settings))],
  });

  const ordered = [...input.ingresses].sort((a, b) => compareIngressAge(a.ingress, b.ingress));
  const canaries: CanaryIngress[] = [];
  const secretFiles = new SecretFileSet();
  let catchAllClaimed = false;
  for (const [rank, accepted] of ordered.entries()) {
    const { ingress, annotations } = accepted;
    if (annotations.canary) {
      canaries.push({ accepted, policy: annotations.canary, rank });
      continue;
    }
    const share = memo ? memo.shares.share(ingress) : ingressShare(ingress);
    const { ref, ownDefault: ownService } = share;
    const claim: BalancingClaim = { rank, ingress: ref, balancing: annotations.balancing };
    const ownDefault = ownService ? backends.add(ownService.service, claim, ownService.backend) : undefined;
    if (share.ruleless && ownDefault !== undefined) {
      // A catch-all Ingress: the oldest one answers every unmatched host.
      if (catchAllClaimed) {
        problems.push(problem(ref, 'info', 'CatchAllIgnored', 'an older Ingress already provides the catch-all default backend'));
      } else {
        catchAllClaimed = true;
        servers.get(CATCH_ALL)!.locations[0] = generatedRoot(ownDefault, ref, input.defaultAnnotations);
      }
    }
    const rootBackend = ownDefault ?? defaultBackend;
    // A rule host gets its server even when none of its paths routes to a Service.
    for (const host of share.ruleHosts) serverFor(host, rootBackend, ref);
    const locationAnnotations = resolveReferencedObjects(
      annotations.location,
      referenceContext(input, ref, { secretFiles, problems, backends }),
    );
    const drafts = memo ? memo.shares.drafts(ingress, locationAnnotations) : shareDrafts(share, locationAnnotations);
    for (const [index, rulePath] of share.paths.entries()) {
      backends.add(rulePath.service, claim, rulePath.backend);
      serverFor(rulePath.host, rootBackend, ref).locations.push(drafts[index]!);
    }
  }
  // After every primary location exists, so that a canary finds its primary whatever their ages.
  mergeCanaries(canaries, (host) => servers.get(host)?.locations ?? [], backends, problems);
  // After every server exists: the oldest Ingress with spec.tls for a host supplies its certificate.
  for (const { ingress, annotations } of ordered) {
    if ((ingress.spec?.tls ?? []).length === 0 || annotations.canary) continue;
    for (const rule of ingress.spec?.rules ?? []) {
      const server = rule.host ? servers.get(rule.host) : undefined;
      if (server && !server.tls)
        server.tls = { secretName: tlsSecretFor(server.hostname, ingress, input.lookup), ingress: ingressRef(ingress) };
    }
  }

  const certificates = new Map<string, Certificate>();
  const defaultCertificate = defaultCertificateOf(input, certificates, warnings);
  const finished: Server[] = [...servers.values()].sort(serverOrder).map((draft) => {
    const secretKey = certificateSecretKey(draft);
    const secret = secretKey === undefined ? undefined : input.lookup.secret(secretKey);
    const { server, problems: found, certificate } = memo ? memo.servers.finish(draft, secret) : finishServer(draft, secret);
    problems.push(...found);
    if (certificate !== undefined) certificates.set(certificate.id, certificate);
    return server;
  });
  const named = withHostAliases(finished, ordered, certificates, problems);
  const tlsFiles = tlsSettingsFiles(input.settings, input.lookup, secretFiles, warnings);
  const finishedBackends = scopeAffinity(backends.finish(problems, warnings), named, withAffinity(ordered));

  memo?.rotate();
  problems.sort(byIngress);
  const result: ModelResult = {
    configuration: {
      servers: named,
      backends: finishedBackends,
      certificates: [...certificates.values()].sort(certificateOrder),
      secretFiles: secretFiles.list(),
      tlsFiles,
      defaultCertificate,
      defaultBackend,
      settings: input.settings,
      ...resolveGlobalHeaders(input.settings, (key) => input.lookup.configMap(key), warnings),
      ...streamConfiguration({
        services: streamServicesOf(input.streamServices, input.lookup, input.endpoints, configMapProblems),
        snippets: ingressStreamSnippets(ordered),
        ...sslPassthroughParts(input.sslPassthrough === true, ordered, named, finishedBackends, problems),
      }),
    },
    problems,
    warnings,
    configMapProblems,
  };
  memo?.isolated.remember(input, result);
  return result;
}

/**
 * ingress-nginx's choice of secret for a rule host of an Ingress with
 * spec.tls: the entry listing the host; else any entry whose certificate
 * covers it (entries may omit hosts); else '' (the default certificate, the
 * host still being TLS).
 */
function tlsSecretFor(host: string, ingress: Ingress, lookup: ModelInput['lookup']): string {
  const entries = ingress.spec?.tls ?? [];
  const wanted = host.toLowerCase();
  const listed = entries.find((tls) => (tls.hosts ?? []).some((h) => h.toLowerCase() === wanted));
  if (listed) return listed.secretName ?? '';
  const namespace = ingress.metadata?.namespace ?? '';
  for (const tls of entries) {
    if (!tls.secretName) continue;
    const key = `${namespace}/${tls.secretName}`;
    const result = certificateFromSecret(lookup.secret(key), key);
    if (result.ok && certificateCoversHost(result.certificate, host)) return tls.secretName;
  }
  return '';
}

/** The Ingresses (ingressKey) whose annotations ask for cookie affinity. */
function withAffinity(ingresses: readonly AcceptedIngress[]): Set<string> {
  return new Set(
    ingresses.filter(({ annotations }) => annotations.balancing.affinity).map(({ ingress }) => ingressKey(ingressRef(ingress))),
  );
}

function generatedRoot(backend: string | undefined, ingress: IngressRef | undefined, annotations: LocationAnnotations): DraftLocation {
  return { path: '/', type: 'Prefix', backend, ingress, annotations, generated: true };
}

function problem(ingress: IngressRef, severity: IngressProblem['severity'], reason: string, message: string): IngressProblem {
  return { ingress, severity, reason, message };
}

/** `--default-backend-service`: its first port answers requests no rule matches. */
function defaultBackendOf(input: ModelInput, backends: BackendTable, warnings: string[]): string | undefined {
  const key = input.defaultBackendService;
  if (!key) return undefined;
  const [namespace = '', name = ''] = key.split('/');
  const port = input.lookup.service(key)?.spec?.ports?.[0]?.port;
  if (port === undefined) {
    warnings.push(`default backend service ${key} not found or has no ports; unmatched requests get 404`);
    return undefined;
  }
  return backends.add({ namespace, name, port });
}

function defaultCertificateOf(input: ModelInput, certificates: Map<string, Certificate>, warnings: string[]): string | undefined {
  const key = input.defaultSslCertificate;
  if (!key) return undefined;
  const result = certificateFromSecret(input.lookup.secret(key), key);
  if (!result.ok) {
    warnings.push(`default SSL certificate: ${result.reason}; using the self-signed fake certificate`);
    return undefined;
  }
  certificates.set(result.certificate.id, result.certificate);
  return result.certificate.id;
}
