// Hosts whose server blocks would be written alike, but for their names, share
// one block: `server_name a.example.com b.example.com;`. nginx holds each
// server and each of its locations as a set of per-module configurations
// (about 10 KiB each in the master, docs/scale.md); an Ingress whose rules
// give several hosts the same paths (www and the bare name, the hosts of one
// TLS entry) had them once per host. At 10,000 synthetic Ingresses a third of
// the servers were such copies: 5,000 servers and 16,667 locations.
//
// What nginx does with a request is the same in the shared block: the names
// keep their kind (exact names only: they are matched by hash, whatever block
// holds them; regex names are tried in the file's order, so they keep their
// own block), and every directive is the one each host had. One variable
// differs: $server_name is the block's first name. So a host shares only when
// nothing may read it: no snippet (server, configuration or the ConfigMap's),
// no FastCGI location (SERVER_NAME is $server_name), nothing of the server or
// its annotations or the ConfigMap that names `server_name`, no `hashBy` that
// does. External auth keys its cache by the hostname, server aliases and www
// redirects are the host's own: those keep their block too.
import { hash } from 'node:crypto';
import type { Backend, Configuration, LocationAnnotations, Server } from '../../../model/types.js';
import { appliedExternalAuth } from './renderExternalAuth.js';
import { CATCH_ALL_HOSTNAME, exactServerName } from './serverNames.js';

const SERVER_NAME = 'server_name';

/**
 * The servers to write, in the model's order: a host that shares the block of
 * an earlier one is left out, its name added to that one's aliases.
 */
export function sharedServerBlocks(configuration: Configuration, defaultServer: Server | undefined): readonly Server[] {
  const { servers, settings } = configuration;
  if (!mayShare(configuration)) return servers;
  const firstByBody = new Map<string, Server>();
  const names = new Map<Server, string[]>();
  const kept: Server[] = [];
  for (const server of servers) {
    const body = server === defaultServer ? undefined : knownBody(server, settings);
    const first = body === undefined ? undefined : firstByBody.get(body);
    if (first === undefined) {
      if (body !== undefined) firstByBody.set(body, server);
      kept.push(server);
    } else names.set(first, [...(names.get(first) ?? []), server.hostname]); // a few hosts a block
  }
  if (names.size === 0) return servers;
  return kept.map((server) => {
    const more = names.get(server);
    if (more === undefined) return server;
    // The same object as last render when nothing changed: the server text cache then passes it at once.
    const last = SHARED.get(server);
    if (last !== undefined && sameNames(last, more)) return last;
    const shared = { ...server, aliases: more.map((hostname) => ({ hostname, certificate: server.certificate })) };
    SHARED.set(server, shared);
    return shared;
  });
}

/** The block last written for a Server object (the model keeps unchanged servers as the same object). */
const SHARED = new WeakMap<Server, Server>();
/** A Server object's shareableBody, with the settings it was found with. */
const BODIES = new WeakMap<Server, { readonly settings: Configuration['settings']; readonly body: string | undefined }>();

function sameNames(shared: Server, names: readonly string[]): boolean {
  const aliases = shared.aliases ?? [];
  return aliases.length === names.length && aliases.every((alias, index) => alias.hostname === names[index]);
}

/** Whether nothing of the whole configuration may read $server_name or write a server's text from a snippet. */
function mayShare(configuration: Configuration): boolean {
  const { settings, backends } = configuration;
  if (settings.serverSnippet !== undefined || settings.locationSnippet !== undefined) return false;
  if (JSON.stringify(settings).includes(SERVER_NAME)) return false;
  return !backends.some((backend: Backend) => backend.balancing.hashBy?.key.includes(SERVER_NAME) === true);
}

function knownBody(server: Server, settings: Configuration['settings']): string | undefined {
  const known = BODIES.get(server);
  if (known !== undefined && known.settings === settings) return known.body;
  const body = shareableBody(server, settings);
  BODIES.set(server, { settings, body });
  return body;
}

/** The server as its block is written, without its name; undefined when it must keep a block of its own. */
function shareableBody(server: Server, settings: Configuration['settings']): string | undefined {
  if (server.hostname === CATCH_ALL_HOSTNAME || exactServerName(server.hostname) === undefined) return undefined;
  if (server.aliases !== undefined || server.wwwRedirect !== undefined || server.serverSnippet !== undefined) return undefined;
  for (const location of server.locations) {
    const { annotations } = location;
    if (annotations.configurationSnippet !== undefined || annotations.backendProtocol === 'FCGI') return undefined;
    if (appliedExternalAuth(location, settings) !== undefined || annotationsDigest(annotations) === undefined) return undefined;
  }
  const rest: Partial<Server> = { ...server };
  delete rest.hostname;
  delete rest.locations;
  // A location's fields one by one, its annotations as their digest: JSON of whole locations cost 0.15 s a render at 10,000.
  const parts: Array<string | undefined> = [JSON.stringify(rest)];
  for (const { path, match, backend, ingress, annotations } of server.locations) {
    parts.push(path, match, backend, ingress?.namespace, ingress?.name, annotationsDigest(annotations));
  }
  const body = JSON.stringify(parts);
  return body.includes(SERVER_NAME) ? undefined : body;
}

/** A location's annotations: their digest, or undefined when they name `server_name`. */
const ANNOTATIONS_DIGESTS = new WeakMap<LocationAnnotations, string | undefined>();

/**
 * Written as JSON once per object: the same object serves every path of its
 * Ingress at every sync until it changes (IngressAcceptance keeps the parsed version).
 */
function annotationsDigest(annotations: LocationAnnotations): string | undefined {
  if (ANNOTATIONS_DIGESTS.has(annotations)) return ANNOTATIONS_DIGESTS.get(annotations);
  const json = JSON.stringify(annotations);
  const digest = json.includes(SERVER_NAME) ? undefined : hash('sha1', json, 'base64');
  ANNOTATIONS_DIGESTS.set(annotations, digest);
  return digest;
}
