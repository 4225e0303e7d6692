// The first read of a manifests folder parses all of it: at 10,000 Ingresses
// 30 MiB of YAML. The texts are split by size into one share per core and
// parsed on worker threads with the same parser (parseWorker.ts). The results
// come back V8-serialized, so this thread holds copies, which lets the texts
// go: the parsers' strings are slices of the text they were read from. With
// the yaml library alone the workers halved the parse (8.1 s -> 5.2 s); with
// the quick reader (quickYamlReader.ts) this thread parses the 30 MiB in
// 1.5-1.6 s and the workers take 1.75 s, but the controller's heap after GC at
// 10,000 is 204 MiB with them against 240 without (RSS after the first sync
// 398-399 MiB against 412-422; issue 18 asks for 400), for 1.5 s more CPU.
// A worker that cannot start or fails leaves its share to this thread.
// Workers start cold (their own isolate, JIT and module loads): below 8 MiB
// of text they were slower and the memory they spare is small. A smaller
// folder is parsed here in slices, yielding between them, so that what the
// start does meanwhile (nginx's prefix, the fake certificate) goes on.
import { availableParallelism } from 'node:os';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { deserialize } from 'node:v8';
import { Worker } from 'node:worker_threads';
import type { ManifestText } from './manifestFileCache.js';
import { parseManifests, type ParsedManifests } from './parseManifests.js';

/** Below this much text (or with one core), starting workers costs more than it saves. */
const PARALLEL_PARSE_MIN_CHARS = 8 << 20;
/** How much text this thread parses between two turns of the event loop. */
const SLICE_CHARS = 256 << 10;

/**
 * Each text's parse, in the texts' order: on worker threads when there is much, else on this thread, in slices.
 * Once `signal` aborts, the workers are ended and the result is not to be used.
 */
export async function parseFirstLoad(
  texts: readonly ManifestText[],
  onFallback: (error: Error) => void,
  signal: AbortSignal,
): Promise<ParsedManifests[]> {
  const chars = texts.reduce((sum, { text }) => sum + text.length, 0);
  if (chars >= PARALLEL_PARSE_MIN_CHARS && availableParallelism() > 1) return parseInParallel(texts, onFallback, signal);
  const parsed: ParsedManifests[] = [];
  let slice = 0;
  for (const { path, text } of texts) {
    if (signal.aborted) break;
    parsed.push(parseManifests(text, path));
    slice += text.length;
    if (slice >= SLICE_CHARS) {
      slice = 0;
      await nextTurn();
    }
  }
  return parsed;
}

/** Each text's parse, in the texts' order, on `threads` worker threads. `onFallback` hears why a share was parsed here instead. */
export async function parseInParallel(
  texts: readonly ManifestText[],
  onFallback: (error: Error) => void,
  signal: AbortSignal,
  threads = availableParallelism(),
  entry = WORKER_ENTRY,
): Promise<ParsedManifests[]> {
  const shares = splitBySize(texts, Math.max(1, threads));
  const results = await Promise.all(
    shares.map(async (share) => {
      try {
        return await parseOnWorker(
          share.map((index) => texts[index]!),
          entry,
          signal,
        );
      } catch (error) {
        if (signal.aborted) return [];
        onFallback(error as Error);
        return share.map((index) => parseManifests(texts[index]!.text, texts[index]!.path));
      }
    }),
  );
  if (signal.aborted) return [];
  const parsed = new Array<ParsedManifests>(texts.length);
  shares.forEach((share, s) => share.forEach((index, i) => (parsed[index] = results[s]![i]!)));
  return parsed;
}

/** Indexes of `texts` in `count` shares of about equal size (the largest first into the smallest share). */
export function splitBySize(texts: readonly ManifestText[], count: number): number[][] {
  const shares = Array.from({ length: Math.min(count, texts.length) }, () => ({ indexes: [] as number[], chars: 0 }));
  const order = texts.map((_, index) => index).sort((a, b) => texts[b]!.text.length - texts[a]!.text.length);
  for (const index of order) {
    const smallest = shares.reduce((best, share) => (share.chars < best.chars ? share : best));
    smallest.indexes.push(index);
    smallest.chars += texts[index]!.text.length;
  }
  return shares.map((share) => share.indexes.sort((a, b) => a - b));
}

// Under tsx (the tests) this module is TypeScript, and a worker thread does not inherit tsx's
// loader: it registers it first. Built, the entry is the compiled JavaScript beside this file.
const WORKER_ENTRY = import.meta.url.endsWith('.ts')
  ? new URL('./parseWorker.ts', import.meta.url)
  : new URL('./parseWorker.js', import.meta.url);

/** A share of texts as it goes to a worker: the paths, and every text's UTF-8 bytes one after the other in one transferred buffer. */
export interface ShareMessage {
  paths: string[];
  byteLengths: number[];
  bytes: ArrayBuffer;
}

function shareMessage(texts: readonly ManifestText[]): ShareMessage {
  const byteLengths = texts.map(({ text }) => Buffer.byteLength(text, 'utf8'));
  const bytes = new ArrayBuffer(byteLengths.reduce((sum, length) => sum + length, 0));
  const view = Buffer.from(bytes);
  let offset = 0;
  texts.forEach(({ text }) => (offset += view.write(text, offset, 'utf8')));
  return { paths: texts.map(({ path }) => path), byteLengths, bytes };
}

function parseOnWorker(texts: readonly ManifestText[], entry: URL, signal: AbortSignal): Promise<ParsedManifests[]> {
  const workerData = shareMessage(texts);
  const transferList = [workerData.bytes];
  const worker = entry.pathname.endsWith('.ts')
    ? new Worker(`import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); })`, {
        eval: true,
        workerData,
        transferList,
      })
    : new Worker(entry, { workerData, transferList });
  const end = () => void worker.terminate();
  signal.addEventListener('abort', end, { once: true });
  worker.once('exit', () => signal.removeEventListener('abort', end));
  return new Promise((resolve, reject) => {
    let result: ParsedManifests[] | undefined;
    worker.once('message', (message: ArrayBuffer) => (result = deserialize(Buffer.from(message)) as ParsedManifests[]));
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (result !== undefined) resolve(result);
      else reject(new Error(`the parse worker exited with code ${code} and no result`));
    });
  });
}
