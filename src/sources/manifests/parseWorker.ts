// A worker thread's share of a folder's parse (parallelParse.ts). The texts
// arrive as one UTF-8 buffer and the results leave as one V8-serialized
// buffer, both transferred, not copied: copies of 15 MiB messages were
// allocated by the main thread's malloc, whose heap then kept them (RSS +64
// MiB at 10,000 Ingresses).
import { serialize } from 'node:v8';
import { parentPort, workerData } from 'node:worker_threads';
import type { ShareMessage } from './parallelParse.js';
import { parseManifests } from './parseManifests.js';

const { paths, byteLengths, bytes } = workerData as ShareMessage;
const buffer = Buffer.from(bytes);
let offset = 0;
const parsed = paths.map((path, index) => {
  const text = buffer.toString('utf8', offset, offset + byteLengths[index]!);
  offset += byteLengths[index]!;
  return parseManifests(text, path);
});
const result = serialize(parsed);
const transferable =
  result.byteOffset === 0 && result.byteLength === result.buffer.byteLength
    ? result.buffer
    : result.buffer.slice(result.byteOffset, result.byteOffset + result.byteLength);
parentPort?.postMessage(transferable, [transferable]);
