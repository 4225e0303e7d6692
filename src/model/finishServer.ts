// One host's server from the drafts every Ingress contributed to it: its
// locations in nginx's order, its host-wide settings (client certificates,
// server-snippet, TLS ciphers) and its certificate. It reads nothing but the
// draft and the Secret its certificate names (memo/serverMemo.ts relies on that).
import type { Secret } from '../kube/objects.js';
import { certificateCoversHost, certificateFromSecret } from './certificates.js';
import { hostClientCertificates } from './hostClientCertificates.js';
import { hostServerSnippet } from './hostServerSnippet.js';
import { hostTlsCiphers } from './hostTlsCiphers.js';
import { finalizeLocations, type DraftLocation } from './locations.js';
import type { Certificate, IngressProblem, IngressRef, Server } from './types.js';

export interface DraftServer {
  hostname: string;
  locations: DraftLocation[];
  /** Secret chosen for this host by the oldest Ingress with spec.tls and a rule for it ('' = the default certificate), and that Ingress. */
  tls?: { secretName: string; ingress: IngressRef };
}

export interface FinishedServer {
  server: Server;
  /** In the order they were found: the certificate's, the locations', the server-snippet's. */
  problems: IngressProblem[];
  /** The certificate the server names (undefined: the default one), for the configuration's list. */
  certificate: Certificate | undefined;
}

/** The Secret `namespace/name` the server's certificate comes from, if it names one. */
export function certificateSecretKey(draft: DraftServer): string | undefined {
  return draft.tls?.secretName ? `${draft.tls.ingress.namespace}/${draft.tls.secretName}` : undefined;
}

/** `secret`: the Secret certificateSecretKey names (undefined: none, or not found). */
export function finishServer(draft: DraftServer, secret: Secret | undefined): FinishedServer {
  const problems: IngressProblem[] = [];
  const certificate = serverCertificate(draft, secret, problems);
  const server: Server = {
    hostname: draft.hostname,
    tls: draft.tls !== undefined,
    certificate: certificate?.id,
    locations: finalizeLocations(draft.hostname, draft.locations, problems),
    ...hostClientCertificates(draft.locations),
    ...hostServerSnippet(draft.hostname, draft.locations, problems),
    ...hostTlsCiphers(draft.locations),
  };
  return { server, problems, certificate };
}

/** The certificate named for the host, when valid for it; otherwise the default one (undefined). */
function serverCertificate(draft: DraftServer, secret: Secret | undefined, problems: IngressProblem[]): Certificate | undefined {
  const key = certificateSecretKey(draft);
  if (key === undefined || draft.tls === undefined) return undefined;
  const result = certificateFromSecret(secret, key);
  if (!result.ok) {
    const reason = secret === undefined ? 'MissingTLSSecret' : 'InvalidTLSSecret';
    problems.push(problem(draft.tls.ingress, reason, `${result.reason}; host ${draft.hostname} gets the default certificate`));
    return undefined;
  }
  if (!certificateCoversHost(result.certificate, draft.hostname)) {
    problems.push(
      problem(
        draft.tls.ingress,
        'CertificateHostMismatch',
        `certificate in ${key} does not cover ${draft.hostname} (it covers ${result.certificate.hosts.join(', ') || 'no names'}); host gets the default certificate`,
      ),
    );
    return undefined;
  }
  return result.certificate;
}

function problem(ingress: IngressRef, reason: string, message: string): IngressProblem {
  return { ingress, severity: 'warning', reason, message };
}
