// The manifests folder's files as last read and parsed, so that a change
// reads and parses again only the files that changed (at 10,000 Ingresses,
// parsing the whole 17.9 MiB folder again took 3.7 s on every change). Objects
// of an unchanged file keep their identity, which the store's caches take as
// "no change" at once. A file counts as unchanged when its inode, size and
// change and modification times are those it had when read, and it was last
// changed well before that read: the kernel stamps files with a coarse clock
// (a few milliseconds), so a second write within one tick of the read would
// keep all four (git's "racily clean" entries). A file's text is kept as its
// SHA-256 digest (the folder's text at 10,000 Ingresses is 30 MiB of heap),
// its stat as the four stamps compared.
import { createHash } from 'node:crypto';
import { readFileSync, statSync, type BigIntStats } from 'node:fs';
import { parseManifests, type ParsedManifests } from './parseManifests.js';

/** A manifest file as read: its objects and errors, or why it could not be read. */
export interface ManifestFile {
  path: string;
  parsed?: ParsedManifests;
  readError?: string;
}

/** What one pass over the folder found. */
export interface ManifestRead {
  files: ManifestFile[];
  /** Files read (and parsed when their text changed) in this pass, of `files.length`. */
  read: number;
  parsed: number;
  /** Whether any file was added, removed, or read to different content since the previous pass. */
  changed: boolean;
}

/** A change this close before the read may be followed by another the stamps cannot show (ns). */
const RACY_NS = 2_000_000_000n;

/** What of a file's stat tells a change. */
interface Stamps {
  ino: bigint;
  size: bigint;
  ctimeNs: bigint;
  mtimeNs: bigint;
}

interface Entry {
  /** Undefined when stat failed (the read then says why): never trusted. */
  stats: Stamps | undefined;
  /** Wall-clock time just before the file was read (ns, the clock file times use). */
  readAtNs: bigint;
  /** SHA-256 of the text read, undefined when it could not be read. */
  digest: string | undefined;
  file: ManifestFile;
}

/** A file whose text changed and waits for its parse. */
export interface ManifestText {
  path: string;
  text: string;
}

export class ManifestFileCache {
  private entries = new Map<string, Entry>();

  /** Every listed file, from the cache where it is known unchanged. A file gone since the listing is left out. */
  read(paths: readonly string[]): ManifestRead {
    const pass = this.scan(paths);
    return pass.finish(pass.texts.map(({ path, text }) => parseManifests(text, path)));
  }

  /**
   * As read, but the changed files' texts are handed back to be parsed elsewhere, which may take its time:
   * the cache changes only when `finish` is called with their results, in the texts' order.
   */
  scan(paths: readonly string[]): { texts: ManifestText[]; finish: (parsed: readonly ParsedManifests[]) => ManifestRead } {
    const next = new Map<string, Entry>();
    const texts: ManifestText[] = [];
    /** The entries of `texts`, in their order, waiting for their parse. */
    const waiting: Entry[] = [];
    let read = 0;
    let changed = false;
    for (const path of paths) {
      const cached = this.entries.get(path);
      const stats = statOf(path);
      if (stats === 'gone') continue; // deleted since it was listed; its own event follows
      if (cached !== undefined && stats !== undefined && unchangedSince(cached, stats)) {
        next.set(path, cached);
        continue;
      }
      read++;
      const readAtNs = BigInt(Date.now()) * 1_000_000n;
      const content = readText(path);
      if (content === undefined) continue;
      const digest = content.text === undefined ? undefined : digestOf(content.text);
      if (cached !== undefined && digest !== undefined && digest === cached.digest) {
        next.set(path, { ...cached, stats, readAtNs });
        continue;
      }
      changed = true;
      const entry: Entry = { stats, readAtNs, digest, file: { path } };
      if (content.text === undefined) entry.file.readError = content.readError;
      else {
        texts.push({ path, text: content.text });
        waiting.push(entry);
      }
      next.set(path, entry);
    }
    const finish = (parsed: readonly ParsedManifests[]): ManifestRead => {
      if (parsed.length !== waiting.length) throw new Error(`${parsed.length} parse results for ${waiting.length} files`);
      waiting.forEach((entry, index) => (entry.file.parsed = parsed[index]));
      if (!changed) changed = next.size !== this.entries.size || [...next.keys()].some((path) => !this.entries.has(path));
      this.entries = next;
      return { files: [...next.values()].map((entry) => entry.file), read, parsed: parsed.length, changed };
    };
    return { texts, finish };
  }

  /** Forgets every file: the next pass reads them all (after the folder could not be read). */
  clear(): void {
    this.entries.clear();
  }
}

function unchangedSince(entry: Entry, stats: Stamps): boolean {
  const before = entry.stats;
  if (before === undefined) return false;
  const same =
    before.ino === stats.ino && before.size === stats.size && before.ctimeNs === stats.ctimeNs && before.mtimeNs === stats.mtimeNs;
  return same && entry.readAtNs - stats.ctimeNs > RACY_NS;
}

/** Through symlinks, as the read (a mounted ConfigMap's keys are symlinks); `gone` when deleted, undefined when stat failed otherwise. */
function statOf(path: string): Stamps | 'gone' | undefined {
  try {
    const { ino, size, ctimeNs, mtimeNs }: BigIntStats = statSync(path, { bigint: true });
    return { ino, size, ctimeNs, mtimeNs };
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'gone' : undefined;
  }
}

function digestOf(text: string): string {
  return createHash('sha256').update(text).digest('base64');
}

/** The file's text or read error; undefined when it was deleted since the listing. */
function readText(path: string): { text?: string; readError?: string } | undefined {
  try {
    return { text: readFileSync(path, 'utf8') };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return { readError: (error as Error).message };
  }
}
