// The watch response is a stream of JSON objects, one per line.
import type { KubeObject } from '../../kube/objects.js';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface WatchEvent {
  type: WatchEventType;
  object: KubeObject & { code?: number; reason?: string; message?: string };
}

/** Splits a watch body into events; a partial trailing line is kept until its newline arrives. */
export async function* watchEvents(body: AsyncIterable<Uint8Array>): AsyncGenerator<WatchEvent> {
  const decoder = new TextDecoder();
  let pending = '';
  for await (const chunk of body) {
    pending += decoder.decode(chunk, { stream: true });
    let newline = pending.indexOf('\n');
    while (newline >= 0) {
      const line = pending.slice(0, newline).trim();
      pending = pending.slice(newline + 1);
      if (line) yield JSON.parse(line) as WatchEvent;
      newline = pending.indexOf('\n');
    }
  }
  const rest = (pending + decoder.decode()).trim();
  if (rest) yield JSON.parse(rest) as WatchEvent;
}
