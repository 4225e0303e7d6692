// The render cache: the text of each server block (with its www redirect) is
// kept with a key of everything it was written from, and the next render
// copies it instead of writing it again when the key is the same. At 10,000
// Ingresses a one-Ingress change then writes one or two servers, not 10,000.
//
// What a server's text is written from (found by reading the renderers; the
// randomized test in test/dataplane/nginx/render/serverTextCache.test.ts
// compares every cached render with a render from scratch):
// - the model Server itself, and whether it takes the listeners' default;
// - the backends its renderers look up (recorded as they read them), each
//   without its endpoints' addresses (live state: the text reads only whether
//   there are any);
// - what the whole configuration holds besides servers and backends that the
//   server renderers read (settings, global headers, the default backend and
//   certificate, the TLS files, whether SSL passthrough is on), and the render
//   context: when any of it changes, every server is written again.
// A server's key is a SHA-1 digest of its JSON, so the cache holds the text
// and a few bytes per server; it keeps the servers of the last render only.
import { hash } from 'node:crypto';
import type { Backend, Configuration, LocationAnnotations, Server } from '../../../model/types.js';
import { ConfigBuilder } from './configBuilder.js';
import { OriginTable } from './configOrigins.js';
import type { ConfigPiece } from './configText.js';
import type { RenderContext } from './renderContext.js';
import type { BackendLookup, RenderScope } from './renderScope.js';

/** The http block's children are at depth 1. */
const SERVER_DEPTH = 1;

interface CachedServer {
  readonly key: string;
  /** The Server it was written from, and whether it took the listeners' default: the same object needs no key. */
  readonly server: Server;
  readonly takesListenersDefault: boolean;
  /**
   * The backends the server's renderers looked up, as they were then (renderedBackend's JSON; undefined: not in the
   * configuration), and the Backend object read: the same object needs no JSON.
   */
  readonly backends: ReadonlyArray<readonly [name: string, json: string | undefined, read: Backend | undefined]>;
  readonly piece: ConfigPiece;
  readonly origins: OriginTable;
}

/** Servers written and servers copied from the cache, over every render (for tests and the bench). */
export interface ServerTextCounts {
  written: number;
  reused: number;
}

export class ServerTextCache {
  #globalKey: string | undefined;
  #servers = new Map<string, CachedServer>();
  readonly counts: ServerTextCounts = { written: 0, reused: 0 };

  /** One render's use of the cache: `end` keeps what it wrote and drops the servers it no longer has. */
  begin(configuration: Configuration, context: RenderContext): ServerTextRender {
    const globalKey = digest(JSON.stringify([globalInputs(configuration), context]));
    if (globalKey !== this.#globalKey) this.#servers.clear();
    this.#globalKey = globalKey;
    return new ServerTextRender(this.#servers, this.counts, (servers) => (this.#servers = servers));
  }

  /** Servers held (for tests and the bench). */
  get size(): number {
    return this.#servers.size;
  }

  /** Bytes of the text and line origins held (for the bench: what the cache adds to the controller's memory, besides keys). */
  get textBytes(): number {
    let bytes = 0;
    for (const { piece } of this.#servers.values()) bytes += piece.bytes.length + piece.lineOrigins.byteLength;
    return bytes;
  }
}

/** What server renderers read of the configuration besides its servers and backends. */
function globalInputs(configuration: Configuration): unknown {
  const { settings, globalHeaders, defaultBackend, defaultCertificate, tlsFiles, stream } = configuration;
  return { settings, globalHeaders, defaultBackend, defaultCertificate, tlsFiles, sslPassthrough: stream?.sslPassthrough };
}

export class ServerTextRender {
  readonly #previous: ReadonlyMap<string, CachedServer>;
  readonly #next = new Map<string, CachedServer>();
  readonly #commit: (servers: Map<string, CachedServer>) => void;
  /** renderedBackend's JSON of this render, by name: each backend is written once however many servers read it. */
  readonly #backendJson = new Map<string, string | undefined>();
  readonly #counts: ServerTextCounts;

  constructor(previous: ReadonlyMap<string, CachedServer>, counts: ServerTextCounts, commit: (servers: Map<string, CachedServer>) => void) {
    this.#previous = previous;
    this.#counts = counts;
    this.#commit = commit;
  }

  /**
   * Writes into `http` the server `write` writes for `server`: the cached text when its key holds, else
   * written now (into a piece, with a scope of its own that records the backends it looks up).
   */
  server(
    http: ConfigBuilder,
    server: Server,
    takesListenersDefault: boolean,
    scope: RenderScope,
    write: (block: ConfigBuilder, scope: RenderScope) => void,
  ): void {
    let cached = this.#previous.get(server.hostname);
    // The model keeps an unchanged server (and backend) the same object from sync to sync (src/model/memo/): its key holds.
    const key =
      cached?.server === server && cached.takesListenersDefault === takesListenersDefault
        ? cached.key
        : digest(JSON.stringify([serverKeyValue(server), takesListenersDefault]));
    if (
      cached === undefined ||
      cached.key !== key ||
      !cached.backends.every(([name, was, read]) => scope.backends.get(name) === read || this.#backendJsonOf(name, scope) === was)
    ) {
      cached = this.#write(key, server, takesListenersDefault, scope, write);
      this.#counts.written++;
    } else this.#counts.reused++;
    this.#next.set(server.hostname, cached);
    http.piece(cached.piece, scope.origins.idsOf(cached.origins));
  }

  end(): void {
    this.#commit(this.#next);
  }

  #write(
    key: string,
    server: Server,
    takesListenersDefault: boolean,
    scope: RenderScope,
    write: (block: ConfigBuilder, scope: RenderScope) => void,
  ): CachedServer {
    const read = new Set<string>();
    const backends: BackendLookup = {
      get: (name) => {
        read.add(name);
        return scope.backends.get(name);
      },
    };
    const origins = new OriginTable();
    const { root, finish } = ConfigBuilder.writingPiece(SERVER_DEPTH);
    write(root, { ...scope, backends, origins });
    return {
      key,
      server,
      takesListenersDefault,
      backends: [...read].map((name) => [name, this.#backendJsonOf(name, scope), scope.backends.get(name)] as const),
      piece: finish(),
      origins,
    };
  }

  #backendJsonOf(name: string, scope: RenderScope): string | undefined {
    if (this.#backendJson.has(name)) return this.#backendJson.get(name);
    const backend = scope.backends.get(name);
    // Its JSON as it is: a backend's is short, and a digest cost more than the comparison.
    const value = backend === undefined ? undefined : JSON.stringify(renderedBackend(backend));
    this.#backendJson.set(name, value);
    return value;
  }
}

/**
 * The Server with each location's annotations as their digest: a LocationAnnotations value is most of a
 * location's JSON, and the same object serves every path of its Ingress at every sync until the Ingress
 * (or what it names) changes (IngressAcceptance keeps the parsed version; the model treats it as immutable),
 * so each object is written as JSON once, not at every render.
 */
function serverKeyValue(server: Server): unknown {
  return {
    ...server,
    locations: server.locations.map((location) => ({ ...location, annotations: annotationsDigest(location.annotations) })),
  };
}

const ANNOTATION_DIGESTS = new WeakMap<LocationAnnotations, string>();

function annotationsDigest(annotations: LocationAnnotations): string {
  let known = ANNOTATION_DIGESTS.get(annotations);
  if (known === undefined) {
    known = digest(JSON.stringify(annotations));
    ANNOTATION_DIGESTS.set(annotations, known);
  }
  return known;
}

/** A backend as the text may depend on it: its endpoints are live state, of which only their presence is rendered. */
function renderedBackend(backend: Backend): unknown {
  return { ...backend, endpoints: backend.endpoints.length > 0 };
}

// The one-shot hash: a Hash object per server cost more than the digest itself.
function digest(json: string): string {
  return hash('sha1', json, 'base64');
}
