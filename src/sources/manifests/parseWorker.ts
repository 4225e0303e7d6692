// A worker thread's share of a folder's parse (parallelParse.ts): the texts
// come in, their ParsedManifests go back, copied by the structured clone, and
// the worker ends.
import { parentPort, workerData } from 'node:worker_threads';
import type { ManifestText } from './manifestFileCache.js';
import { parseManifests } from './parseManifests.js';

const texts = workerData as readonly ManifestText[];
parentPort?.postMessage(texts.map(({ path, text }) => parseManifests(text, path)));
