import { test } from 'node:test';
import assert from 'node:assert/strict';
import { watchEvents } from '../../../src/sources/kubernetes/watchEvents.js';

async function* chunks(...parts: string[]): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield new TextEncoder().encode(part);
}

async function collect(parts: string[]): Promise<string[]> {
  const types: string[] = [];
  for await (const event of watchEvents(chunks(...parts))) types.push(`${event.type}:${event.object.metadata?.name ?? ''}`);
  return types;
}

test('events split across chunks and several per chunk are all decoded', async () => {
  const a = JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'a' } } });
  const b = JSON.stringify({ type: 'DELETED', object: { metadata: { name: 'b' } } });
  assert.deepEqual(await collect([a.slice(0, 10), a.slice(10) + '\n' + b + '\n']), ['ADDED:a', 'DELETED:b']);
});

test('a multi-byte character split between chunks survives', async () => {
  const line = JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'é' } } }) + '\n';
  const bytes = new TextEncoder().encode(line);
  const cut = bytes.indexOf(0xc3) + 1;
  async function* split(): AsyncGenerator<Uint8Array> {
    yield bytes.slice(0, cut);
    yield bytes.slice(cut);
  }
  const names: string[] = [];
  for await (const event of watchEvents(split())) names.push(event.object.metadata?.name ?? '');
  assert.deepEqual(names, ['é']);
});

test('a final event without a newline is delivered', async () => {
  assert.deepEqual(await collect([JSON.stringify({ type: 'BOOKMARK', object: { metadata: { name: 'x' } } })]), ['BOOKMARK:x']);
});
