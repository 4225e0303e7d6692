// Every annotation name Portico knows under the prefix: the implemented groups
// (with their aliases), the snippet annotations and ingress-nginx's annotations
// not implemented yet. A name declared twice is a programming error.
import type { RiskLevel } from '../settings/globalSettings.js';
import type { Balancing, LocationAnnotations } from '../types.js';
import type { AnnotationDefinition, AnnotationGroup } from './annotationDefinition.js';
import { backendProtocolAnnotations } from './backendProtocolAnnotations.js';
import { backendTlsAnnotations } from './backendTlsAnnotations.js';
import { basicAuthAnnotations } from './basicAuthAnnotations.js';
import { canaryAnnotations } from './canaryAnnotations.js';
import { clientCertificateAnnotations } from './clientCertificateAnnotations.js';
import { errorPageAnnotations } from './errorPageAnnotations.js';
import { customHeadersAnnotations } from './customHeadersAnnotations.js';
import { corsAnnotations } from './corsAnnotations.js';
import { externalAuthAnnotations } from './externalAuthAnnotations.js';
import { fastCgiAnnotations } from './fastCgiAnnotations.js';
import { http2PushPreloadAnnotations } from './http2PushPreloadAnnotations.js';
import { ipAccessAnnotations } from './ipAccessAnnotations.js';
import { loadBalanceAnnotations } from './loadBalanceAnnotations.js';
import { logAnnotations } from './logAnnotations.js';
import { fromToWwwRedirectAnnotations } from './fromToWwwRedirectAnnotations.js';
import { mirrorAnnotations } from './mirrorAnnotations.js';
import { modSecurityAnnotations } from './modSecurityAnnotations.js';
import { nextUpstreamAnnotations } from './nextUpstreamAnnotations.js';
import { proxyAnnotations } from './proxyAnnotations.js';
import { proxyTuningAnnotations } from './proxyTuningAnnotations.js';
import { rateLimitAnnotations } from './rateLimitAnnotations.js';
import { responseRewriteAnnotations } from './responseRewriteAnnotations.js';
import { redirectAnnotations } from './redirectAnnotations.js';
import { rewriteAnnotations } from './rewriteAnnotations.js';
import { satisfyAnnotations } from './satisfyAnnotations.js';
import { serviceUpstreamAnnotations } from './serviceUpstreamAnnotations.js';
import { serverAliasAnnotations } from './serverAliasAnnotations.js';
import { sessionAffinityAnnotations } from './sessionAffinityAnnotations.js';
import { sslPassthroughAnnotations } from './sslPassthroughAnnotations.js';
import {
  configurationSnippetAnnotations,
  serverSnippetAnnotations,
  SNIPPET_ANNOTATIONS,
  SNIPPET_RISK,
  streamSnippetAnnotations,
} from './snippetAnnotations.js';
import { tlsCipherAnnotations } from './tlsCipherAnnotations.js';
import { UNIMPLEMENTED_ANNOTATION_GROUPS } from './unimplementedAnnotations.js';
import { upstreamHashByAnnotations } from './upstreamHashByAnnotations.js';
import { upstreamHeaderAnnotations } from './upstreamHeaderAnnotations.js';

/** One group per property: the compiler checks none is missing. */
type GroupPerProperty<T> = { readonly [K in keyof T]-?: AnnotationGroup<T[K]> };

export const LOCATION_ANNOTATION_GROUPS: GroupPerProperty<LocationAnnotations> = {
  rewrite: rewriteAnnotations,
  backendProtocol: backendProtocolAnnotations,
  proxy: proxyAnnotations,
  ipAccess: ipAccessAnnotations,
  configurationSnippet: configurationSnippetAnnotations,
  clientCertificates: clientCertificateAnnotations,
  limits: rateLimitAnnotations,
  modSecurity: modSecurityAnnotations,
  backendTls: backendTlsAnnotations,
  externalAuth: externalAuthAnnotations,
  basicAuth: basicAuthAnnotations,
  satisfy: satisfyAnnotations,
  errorPages: errorPageAnnotations,
  customHeaders: customHeadersAnnotations,
  upstreamHeaders: upstreamHeaderAnnotations,
  responseRewrites: responseRewriteAnnotations,
  fastCgi: fastCgiAnnotations,
  serverSnippet: serverSnippetAnnotations,
  http2PushPreload: http2PushPreloadAnnotations,
  proxyTuning: proxyTuningAnnotations,
  nextUpstream: nextUpstreamAnnotations,
  tlsCiphers: tlsCipherAnnotations,
  logs: logAnnotations,
  cors: corsAnnotations,
  redirects: redirectAnnotations,
  serverAlias: serverAliasAnnotations,
  fromToWwwRedirect: fromToWwwRedirectAnnotations,
  mirror: mirrorAnnotations,
  sslPassthrough: sslPassthroughAnnotations,
};

export const BALANCING_ANNOTATION_GROUPS: GroupPerProperty<Balancing> = {
  algorithm: loadBalanceAnnotations,
  hashBy: upstreamHashByAnnotations,
  affinity: sessionAffinityAnnotations,
  serviceUpstream: serviceUpstreamAnnotations,
};

/** Every implemented group, each filling a part of IngressAnnotations. */
export const ANNOTATION_GROUPS: readonly AnnotationGroup<unknown>[] = [
  ...Object.values(LOCATION_ANNOTATION_GROUPS),
  ...Object.values(BALANCING_ANNOTATION_GROUPS),
  canaryAnnotations,
  streamSnippetAnnotations,
];

export type KnownAnnotation =
  | { kind: 'implemented'; risk: RiskLevel; definition: AnnotationDefinition<unknown>; isAlias: boolean }
  /** `definition`: the implemented ones; the others are ignored once admitted. */
  | { kind: 'snippet'; risk: RiskLevel; definition?: AnnotationDefinition<unknown> }
  | { kind: 'unimplemented'; risk: RiskLevel; unsafeToIgnore: string | undefined; missingModule: string | undefined };

function buildRegistry(): ReadonlyMap<string, KnownAnnotation> {
  const registry = new Map<string, KnownAnnotation>();
  const declare = (name: string, annotation: KnownAnnotation) => {
    if (registry.has(name)) throw new Error(`annotation ${name} is declared twice`);
    registry.set(name, annotation);
  };
  for (const group of ANNOTATION_GROUPS) {
    for (const definition of group.annotations) {
      if (SNIPPET_ANNOTATIONS.includes(definition.name)) {
        declare(definition.name, { kind: 'snippet', risk: SNIPPET_RISK, definition });
        continue;
      }
      declare(definition.name, { kind: 'implemented', risk: definition.risk, definition, isAlias: false });
      for (const alias of definition.aliases ?? []) {
        declare(alias, { kind: 'implemented', risk: definition.risk, definition, isAlias: true });
      }
    }
  }
  for (const name of SNIPPET_ANNOTATIONS) if (!registry.has(name)) declare(name, { kind: 'snippet', risk: SNIPPET_RISK });
  for (const { risks, unsafeToIgnore, missingModule } of UNIMPLEMENTED_ANNOTATION_GROUPS) {
    for (const [name, risk] of Object.entries(risks)) declare(name, { kind: 'unimplemented', risk, unsafeToIgnore, missingModule });
  }
  return registry;
}

/** By name after the prefix, aliases included. */
export const KNOWN_ANNOTATIONS = buildRegistry();
