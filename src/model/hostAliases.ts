// The other names a server answers: its server-alias names and the www twin
// of from-to-www-redirect, as ingress-nginx's createServers and BuildRedirects
// decide them. Per host, the oldest Ingress with a rule for it and a
// non-empty server-alias sets its aliases (a younger one's are ignored, with
// an Event). A name that is a host of some Ingress is never an alias or a
// redirect: that host keeps serving it, and the Ingress asking for it gets a
// Warning. Unlike ingress-nginx (which leaves nginx to pick one server for a
// name two servers list), an alias two hosts ask for goes to the host whose
// Ingress is older, and the other Ingress gets a Warning; a redirect name
// that is an alias stays the alias. Each name gets its server's certificate
// when that covers it, else the default certificate.
import type { HostAlias } from './annotations/serverAliasAnnotations.js';
import type { AcceptedIngress } from './buildConfiguration.js';
import { certificateCoversHost } from './certificates.js';
import { CATCH_ALL, ingressRef, ruleHost } from './ingressRules.js';
import type { Certificate, IngressProblem, IngressRef, Server } from './types.js';

/** The reason of the Warning Event when an alias or a www redirect is not added. */
export const SERVER_ALIAS_CONFLICT = 'ServerAliasConflict';
export const WWW_REDIRECT_CONFLICT = 'WwwRedirectConflict';

/**
 * `servers` with their aliases and www redirects. `ordered`: the accepted
 * Ingresses, oldest first; `certificates`: the configuration's, by id.
 */
export function withHostAliases(
  servers: readonly Server[],
  ordered: readonly AcceptedIngress[],
  certificates: ReadonlyMap<string, Certificate>,
  problems: IngressProblem[],
): Server[] {
  const hosts = new Set(servers.map((server) => server.hostname));
  const aliasesByHost = claimAliases(ordered, hosts, problems);
  const aliasNames = new Set([...aliasesByHost.values()].flat());
  return servers.map((server) => {
    const coveredBy = (hostname: string): HostAlias => ({ hostname, certificate: coveringCertificate(server, hostname, certificates) });
    const aliases = (aliasesByHost.get(server.hostname) ?? []).map(coveredBy);
    const redirectFrom = wwwRedirectName(server, hosts, aliasNames, problems);
    // Without either, the server itself: an unchanged one stays the same object from run to run (memo/serverMemo.ts).
    if (aliases.length === 0 && redirectFrom === undefined) return server;
    return {
      ...server,
      ...(aliases.length > 0 ? { aliases } : {}),
      ...(redirectFrom !== undefined ? { wwwRedirect: coveredBy(redirectFrom) } : {}),
    };
  });
}

/** Host → its aliases (sorted), each name given to one host only. */
function claimAliases(ordered: readonly AcceptedIngress[], hosts: ReadonlySet<string>, problems: IngressProblem[]): Map<string, string[]> {
  const aliasesByHost = new Map<string, string[]>();
  const owners = new Map<string, string>();
  for (const { ingress, annotations } of ordered) {
    const wanted = annotations.location.serverAlias;
    if (annotations.canary || wanted === undefined) continue;
    const ref = ingressRef(ingress);
    for (const host of new Set((ingress.spec?.rules ?? []).map(ruleHost))) {
      if (host === CATCH_ALL || !hosts.has(host)) continue;
      if (aliasesByHost.has(host)) {
        problems.push(info(ref, `server-alias ignored for host ${host}: an older Ingress already sets its aliases`));
        continue;
      }
      const granted: string[] = [];
      for (const alias of wanted) {
        if (alias === host) continue;
        const owner = hosts.has(alias) ? alias : owners.get(alias);
        if (owner !== undefined) {
          const why = owner === alias ? 'it is the host of an Ingress' : `it is already an alias of ${owner}`;
          problems.push(warning(ref, SERVER_ALIAS_CONFLICT, `server-alias ${alias} not added to host ${host}: ${why}`));
          continue;
        }
        owners.set(alias, host);
        granted.push(alias);
      }
      aliasesByHost.set(host, granted);
    }
  }
  return aliasesByHost;
}

/** The www twin of a server some location of which asks for from-to-www-redirect, unless the name is taken. */
function wwwRedirectName(
  server: Server,
  hosts: ReadonlySet<string>,
  aliasNames: ReadonlySet<string>,
  problems: IngressProblem[],
): string | undefined {
  const asking = server.locations.find((location) => location.annotations.fromToWwwRedirect === true && location.ingress !== undefined);
  if (asking?.ingress === undefined || server.hostname === CATCH_ALL || server.hostname.startsWith('*.')) return undefined;
  const from = server.hostname.startsWith('www.') ? server.hostname.slice('www.'.length) : `www.${server.hostname}`;
  if (!hosts.has(from) && !aliasNames.has(from)) return from;
  const why = hosts.has(from) ? 'it is the host of an Ingress' : 'it is a server-alias';
  problems.push(
    warning(asking.ingress, WWW_REDIRECT_CONFLICT, `from-to-www-redirect from ${from} to ${server.hostname} not added: ${why}`),
  );
  return undefined;
}

function coveringCertificate(server: Server, hostname: string, certificates: ReadonlyMap<string, Certificate>): string | undefined {
  const certificate = server.certificate === undefined ? undefined : certificates.get(server.certificate);
  return certificate !== undefined && certificateCoversHost(certificate, hostname) ? certificate.id : undefined;
}

function warning(ingress: IngressRef, reason: string, message: string): IngressProblem {
  return { ingress, severity: 'warning', reason, message };
}

function info(ingress: IngressRef, message: string): IngressProblem {
  return { ingress, severity: 'info', reason: 'ServerAliasIgnored', message };
}

/** The names a server answers besides its hostname: its aliases, then its www redirect's name. */
export function otherServerNames(server: Server): HostAlias[] {
  return [...(server.aliases ?? []), ...(server.wwwRedirect === undefined ? [] : [server.wwwRedirect])];
}

/** Every name a server answers: its hostname, its aliases and its www redirect's name. */
export function allServerNames(server: Server): string[] {
  return [server.hostname, ...otherServerNames(server).map((name) => name.hostname)];
}
