// The main context and events block beyond worker-processes: accepting,
// open files, CPU binding and per-client debug logging (renderMainContext.ts).
import { parseSourceRange } from '../../annotations/ipAccessAnnotations.js';
import type { SpecTable } from '../settingSpec.js';
import { integerParser, parseBoolean, type ValueParser } from '../valueSyntax.js';

export interface WorkerSettings {
  /** enable-multi-accept: a worker accepts every pending connection at once */
  enableMultiAccept: boolean;
  /** max-worker-open-files: worker_rlimit_nofile; 0 derives it from the open-files limit (openFilesLimit.ts) */
  maxWorkerOpenFiles: number;
  /** worker-cpu-affinity: worker_cpu_affinity's arguments (`auto` [mask], or one mask per worker); empty binds nothing */
  workerCpuAffinity: string[];
  /** debug-connections: addresses or CIDRs whose connections nginx logs at debug level (Debian's nginx is built --with-debug) */
  debugConnections: string[];
}

export const WORKER_DEFAULTS: WorkerSettings = {
  enableMultiAccept: true,
  maxWorkerOpenFiles: 0,
  workerCpuAffinity: [],
  debugConnections: [],
};

/**
 * ingress-nginx's own floor for the derived value; below it a worker runs out
 * of descriptors before it reaches nginx's default 512 connections. 2^20 is
 * the usual ceiling of the kernel (fs.nr_open).
 */
export const MIN_WORKER_OPEN_FILES = 1024;
const MAX_WORKER_OPEN_FILES = 2 ** 20;

const parseWorkerOpenFiles: ValueParser<number> = (text) => {
  if (text === '0') return { ok: true, value: 0 };
  const parsed = integerParser(MIN_WORKER_OPEN_FILES, MAX_WORKER_OPEN_FILES)(text);
  return parsed.ok ? parsed : { ok: false, expected: `0 (derived) or ${parsed.expected}` };
};

/**
 * A CPU mask: a bit per CPU, the rightmost the first, up to CPU_SETSIZE
 * (1024) bits, with at least one CPU (nginx's `auto` would otherwise search
 * an empty mask for a CPU without end).
 */
const CPU_MASK = /^[01]{1,1024}$/;
const MAX_CPU_MASKS = 1024;

function isCpuMask(word: string): boolean {
  return CPU_MASK.test(word) && word.includes('1');
}

const AFFINITY_EXPECTED = '"auto", "auto" and one CPU mask, or one CPU mask per worker such as "0001 0010 0100 1000"';

const parseCpuAffinity: ValueParser<string[]> = (text) => {
  const words = text.split(' ').filter((word) => word !== '');
  if (words.length === 0) return { ok: true, value: [] };
  const [first, ...rest] = words;
  const masks = first === 'auto' ? rest : words;
  const valid = (first === 'auto' ? masks.length <= 1 : masks.length <= MAX_CPU_MASKS) && masks.every(isCpuMask);
  return valid ? { ok: true, value: words } : { ok: false, expected: AFFINITY_EXPECTED };
};

const parseDebugConnections: ValueParser<string[]> = (text) => (text === '' ? { ok: true, value: [] } : parseSourceRange(text));

export const WORKER_SPECS: SpecTable<WorkerSettings> = {
  enableMultiAccept: { key: 'enable-multi-accept', parse: parseBoolean },
  maxWorkerOpenFiles: { key: 'max-worker-open-files', parse: parseWorkerOpenFiles },
  workerCpuAffinity: { key: 'worker-cpu-affinity', parse: parseCpuAffinity },
  debugConnections: { key: 'debug-connections', parse: parseDebugConnections },
};
