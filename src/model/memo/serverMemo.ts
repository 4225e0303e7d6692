// A host's finished server (finishServer.ts), kept per hostname with what it
// was finished from: every draft location (path, type, backend name, Ingress,
// whether generated, and its LocationAnnotations object), the host's TLS
// choice and the Secret object its certificate comes from. Drafts are built
// again at every run, so they are compared field by field; annotations by
// identity, since IngressAcceptance keeps one parsed object per Ingress version
// and a resolver of referenced objects returns it unchanged when the Ingress
// names none (one that names a Secret or ConfigMap gets a new object at each
// run, and its hosts are finished again).
import type { Secret } from '../../kube/objects.js';
import { finishServer, type DraftServer, type FinishedServer } from '../finishServer.js';
import type { DraftLocation } from '../locations.js';
import type { IngressRef } from '../types.js';
import { GenerationMap } from './generationMap.js';

interface Entry {
  draft: DraftServer;
  secret: Secret | undefined;
  finished: FinishedServer;
}

export class ServerMemo {
  readonly #entries = new GenerationMap<string, Entry>();

  /** finishServer(draft, secret), from the memo when it was finished from the same draft and Secret. */
  finish(draft: DraftServer, secret: Secret | undefined): FinishedServer {
    let entry = this.#entries.get(draft.hostname);
    if (
      entry === undefined ||
      entry.secret !== secret ||
      !sameTls(entry.draft.tls, draft.tls) ||
      !sameDrafts(entry.draft.locations, draft.locations)
    ) {
      entry = { draft, secret, finished: finishServer(draft, secret) };
    }
    this.#entries.keep(draft.hostname, entry);
    return entry.finished;
  }

  rotate(): void {
    this.#entries.rotate();
  }

  get size(): number {
    return this.#entries.size;
  }
}

function sameTls(a: DraftServer['tls'], b: DraftServer['tls']): boolean {
  return a === b || (a !== undefined && b !== undefined && a.secretName === b.secretName && sameRef(a.ingress, b.ingress));
}

function sameDrafts(a: readonly DraftLocation[], b: readonly DraftLocation[]): boolean {
  if (a.length !== b.length) return false;
  for (let index = 0; index < a.length; index++) {
    const x = a[index]!;
    const y = b[index]!;
    // The same object when the Ingress and its resolved annotations are the same (ingressShareMemo.ts).
    if (x === y) continue;
    if (
      x.path !== y.path ||
      x.type !== y.type ||
      x.backend !== y.backend ||
      x.generated !== y.generated ||
      x.annotations !== y.annotations ||
      !sameRef(x.ingress, y.ingress)
    )
      return false;
  }
  return true;
}

function sameRef(a: IngressRef | undefined, b: IngressRef | undefined): boolean {
  return a === b || (a !== undefined && b !== undefined && a.namespace === b.namespace && a.name === b.name);
}
